/**
 * The comments of the proto declarations, read from the descriptor set's source_code_info:
 * the generated code carries no comments, so the document's descriptions come from here.
 * Keyed by fully-qualified name (`pkg.Message`, `pkg.Message.field`, `pkg.Service`,
 * `pkg.Service.Method`), which is how the runtime descriptors are matched to them.
 */
import type { DescField, DescMessage, DescMethod, DescService } from '@bufbuild/protobuf';
import type {
  DescriptorProto,
  FileDescriptorProto,
  FileDescriptorSet,
} from '@bufbuild/protobuf/wkt';

export interface CommentIndex {
  /** The cleaned leading (else trailing) comment, or '' when the declaration has none. */
  of(desc: DescMessage | DescField | DescService | DescMethod): string;
}

// Field numbers of descriptor.proto that make up source_code_info location paths.
const FILE_MESSAGE_TYPE = 4;
const FILE_SERVICE = 6;
const MESSAGE_FIELD = 2;
const MESSAGE_NESTED_TYPE = 3;
const SERVICE_METHOD = 2;

export function indexComments(descriptorSet: FileDescriptorSet): CommentIndex {
  const byName = new Map<string, string>();
  for (const file of descriptorSet.file) {
    const byPath = commentsByPath(file);
    const add = (name: string, path: readonly number[]) => {
      const comment = byPath.get(path.join('.'));
      if (comment) byName.set(name, comment);
    };
    const addMessage = (message: DescriptorProto, name: string, path: readonly number[]) => {
      add(name, path);
      message.field.forEach((field, i) =>
        add(`${name}.${field.name}`, [...path, MESSAGE_FIELD, i]),
      );
      message.nestedType.forEach((nested, i) =>
        addMessage(nested, `${name}.${nested.name}`, [...path, MESSAGE_NESTED_TYPE, i]),
      );
    };
    const scope = file.package ? `${file.package}.` : '';
    file.messageType.forEach((message, i) =>
      addMessage(message, scope + message.name, [FILE_MESSAGE_TYPE, i]),
    );
    file.service.forEach((service, i) => {
      add(scope + service.name, [FILE_SERVICE, i]);
      service.method.forEach((method, j) =>
        add(`${scope}${service.name}.${method.name}`, [FILE_SERVICE, i, SERVICE_METHOD, j]),
      );
    });
  }
  return { of: (desc) => byName.get(fullName(desc)) ?? '' };
}

function fullName(desc: DescMessage | DescField | DescService | DescMethod): string {
  switch (desc.kind) {
    case 'message':
    case 'service':
      return desc.typeName;
    case 'field':
      return `${desc.parent.typeName}.${desc.name}`;
    case 'rpc':
      return `${desc.parent.typeName}.${desc.name}`;
  }
}

function commentsByPath(file: FileDescriptorProto): Map<string, string> {
  const comments = new Map<string, string>();
  for (const location of file.sourceCodeInfo?.location ?? []) {
    const text = cleanComment(location.leadingComments || location.trailingComments || '');
    if (text) comments.set(location.path.join('.'), text);
  }
  return comments;
}

/** protoc keeps the space after `//` on every line; drop it and the surrounding blank lines. */
function cleanComment(raw: string): string {
  return raw
    .split('\n')
    .map((line) => line.replace(/^ /, '').trimEnd())
    .join('\n')
    .trim();
}
