import {
  PathTemplateError,
  parsePathTemplate,
  templateShape,
} from '../../src/gateway/routing/path-template.js';

describe('parsePathTemplate', () => {
  it('parses literals and variables', () => {
    expect(parsePathTemplate('/api/v1/groups/{group_id}/members/{address}/promote')).toEqual([
      { kind: 'literal', value: 'api' },
      { kind: 'literal', value: 'v1' },
      { kind: 'literal', value: 'groups' },
      { kind: 'variable', fieldPath: 'group_id', multi: false },
      { kind: 'literal', value: 'members' },
      { kind: 'variable', fieldPath: 'address', multi: false },
      { kind: 'literal', value: 'promote' },
    ]);
  });

  it('parses dotted variables and trailing multi-segment patterns', () => {
    expect(parsePathTemplate('/files/{ref.name=**}')).toEqual([
      { kind: 'literal', value: 'files' },
      { kind: 'variable', fieldPath: 'ref.name', multi: true },
    ]);
  });

  it.each([
    ['api/v1', 'must start'],
    ['/api/v1/', 'must not end'],
    ['/api//x', 'empty segment'],
    ['/api/{id', 'unclosed'],
    ['/api/{Id}', 'bad variable'],
    ['/api/x:verb', 'custom verbs'],
    ['/api/{id=a/*}', 'patterns'],
    ['/api/**/x', 'last segment'],
  ])('refuses %s', (template, problem) => {
    expect(() => parsePathTemplate(template)).toThrow(PathTemplateError);
    expect(() => parsePathTemplate(template)).toThrow(problem);
  });

  it('erases variable names in the shape', () => {
    expect(templateShape(parsePathTemplate('/api/keys/{address}'))).toBe('/api/keys/{}');
  });
});
