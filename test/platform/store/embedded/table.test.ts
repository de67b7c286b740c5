import { Table } from '../../../../src/platform/store/embedded/table.js';

function tableWith(count: number): Table {
  const table = new Table();
  table.addIndex({ collection: 't', name: 'email_unique', key: { email: 1 }, unique: true });
  table.addIndex({
    collection: 't',
    name: 'tenant_login',
    key: { tenant: 1, login: 1 },
    unique: true,
  });
  table.addIndex({ collection: 't', name: 'by_room', key: { room: 1, seq: -1 } });
  for (let i = 0; i < count; i += 1) {
    table.insert({
      _id: `id${i}`,
      email: `${i}@x`,
      tenant: `t${i % 10}`,
      login: `l${i}`,
      room: `r${i % 100}`,
      seq: i,
    });
  }
  return table;
}

const visited = (table: Table, filter: Record<string, unknown>) =>
  [...table.candidates(filter)].length;

describe('lookups that must not scan the collection', () => {
  const table = tableWith(10_000);

  test('by _id, also with $in', () => {
    expect(visited(table, { _id: 'id5' })).toBe(1);
    expect(visited(table, { _id: { $in: ['id1', 'id2', 'nope'] } })).toBe(2);
  });

  test('by a unique field and by every field of a compound unique index', () => {
    expect(visited(table, { email: '7@x' })).toBe(1);
    expect(visited(table, { email: { $eq: '7@x' }, other: 1 })).toBe(1);
    expect(visited(table, { tenant: 't3', login: 'l13' })).toBe(1);
  });

  test('by the leading field of a non-unique index', () => {
    expect(visited(table, { room: 'r42', seq: { $gt: 5000 } })).toBe(100);
  });

  test('anything else scans', () => {
    expect(visited(table, { seq: 5 })).toBe(10_000);
    expect(visited(table, { email: { $regex: '^7' } })).toBe(10_000);
  });
});

test('index entries follow replaced and deleted documents', () => {
  const table = tableWith(3);
  const previous = table.get('id1')!;
  table.replace(previous, { ...previous, email: 'new@x', room: 'elsewhere' });
  expect([...table.candidates({ email: '1@x' })]).toEqual([]);
  expect([...table.candidates({ email: 'new@x' })].map((doc) => doc._id)).toEqual(['id1']);
  expect([...table.candidates({ room: 'elsewhere' })].map((doc) => doc._id)).toEqual(['id1']);
  table.delete('id1');
  expect([...table.candidates({ email: 'new@x' })]).toEqual([]);
  // The freed key can be taken by another document.
  table.insert({ _id: 'id9', email: 'new@x' });
});

test('a rejected write leaves every index as it was', () => {
  const table = tableWith(3);
  const previous = table.get('id2')!;
  // email is free but (tenant, login) collides with id1: nothing may change.
  expect(() =>
    table.replace(previous, { ...previous, email: 'free@x', tenant: 't1', login: 'l1' }),
  ).toThrow();
  expect([...table.candidates({ email: '2@x' })].map((doc) => doc._id)).toEqual(['id2']);
  expect([...table.candidates({ email: 'free@x' })]).toEqual([]);
});

test('a replacement that shares the indexed fields keeps the entries; one that changes a partial filter field moves them', () => {
  const table = new Table();
  table.addIndex({
    collection: 't',
    name: 'one_open',
    key: { owner: 1 },
    unique: true,
    partialFilterExpression: { $and: [{ open: true }] },
  });
  table.addIndex({ collection: 't', name: 'by_room', key: { 'room.name': 1 } });
  const room = { name: 'r1' };
  const first = { _id: 'a', owner: 'o', open: true, room, n: 1 };
  table.insert(first);
  // Only `n` changes (the update's shallow copy shares `room`): every lookup still finds it.
  const second = { ...first, n: 2 };
  table.replace(first, second);
  expect([...table.candidates({ owner: 'o' })]).toEqual([second]);
  expect([...table.candidates({ 'room.name': 'r1' })]).toEqual([second]);
  expect(() => table.insert({ _id: 'b', owner: 'o', open: true })).toThrow('one_open');
  // Closing it leaves the partial index, though its key field `owner` is unchanged.
  const closed = { ...second, open: false };
  table.replace(second, closed);
  table.insert({ _id: 'b', owner: 'o', open: true });
  // A new room object moves the field index entry.
  const moved = { ...closed, room: { name: 'r2' } };
  table.replace(closed, moved);
  expect([...table.candidates({ 'room.name': 'r1' })]).toEqual([]);
  expect([...table.candidates({ 'room.name': 'r2' })]).toEqual([moved]);
});

test('a query that implies a partial index filter reads only the documents the index holds', () => {
  const table = new Table();
  for (let i = 0; i < 1000; i++)
    table.insert({
      _id: `m${i}`,
      sentAt: new Date(i),
      ...(i % 100 === 0 ? { unannounced: true } : {}),
    });
  table.addIndex({
    collection: 't',
    name: 'unannounced',
    key: { sentAt: 1 },
    partialFilterExpression: { unannounced: true },
  });
  const sweep = { unannounced: true, sentAt: { $lt: new Date(10_000) } };
  expect(visited(table, sweep)).toBe(10);
  // Not implied: `unannounced: {$exists: true}` also matches false; no condition on it at all.
  expect(
    visited(table, { unannounced: { $exists: true }, sentAt: { $lt: new Date(10_000) } }),
  ).toBe(1000);
  expect(visited(table, { sentAt: { $lt: new Date(10) } })).toBe(1000);
  // Documents move in and out with their updates.
  const marked = table.get('m0')!;
  const { unannounced: _gone, ...announced } = marked;
  table.replace(marked, announced);
  table.insert({ _id: 'late', sentAt: new Date(5), unannounced: true });
  expect([...table.candidates(sweep)].map((doc) => doc._id).sort()).toEqual([
    'late',
    'm100',
    'm200',
    'm300',
    'm400',
    'm500',
    'm600',
    'm700',
    'm800',
    'm900',
  ]);
  table.delete('late');
  expect(visited(table, sweep)).toBe(9);
});

test('a partial unique index answers only the queries that imply its filter, even when they pin its fields', () => {
  const table = new Table();
  table.addIndex({
    collection: 't',
    name: 'one_open_per_owner',
    key: { owner: 1 },
    unique: true,
    partialFilterExpression: { open: true },
  });
  for (let i = 0; i < 100; i++) table.insert({ _id: `closed${i}`, owner: 'o1', open: false });
  table.insert({ _id: 'open', owner: 'o1', open: true });
  expect(visited(table, { owner: 'o1', open: true })).toBe(1);
  // Pinned but not implied: the closed documents are not in the index, and must still be found.
  expect(visited(table, { owner: 'o1' })).toBe(101);
});

test('a query constrains a partial filter field through a dotted path into it', () => {
  const table = new Table();
  for (let i = 0; i < 100; i++) table.insert({ _id: `s${i}`, state: { open: i < 3 }, at: i });
  table.addIndex({
    collection: 't',
    name: 'open_by_time',
    key: { at: 1 },
    partialFilterExpression: { 'state.open': true },
  });
  expect(visited(table, { 'state.open': true, at: { $gte: 0 } })).toBe(3);
  expect(visited(table, { at: { $gte: 0 } })).toBe(100);
});
