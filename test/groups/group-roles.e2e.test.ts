/**
 * The role table of groups.proto, cell by cell (owner, admin, member and a non-member, each
 * promoting, demoting, removing, inviting and renaming), over real HTTP and again over native
 * gRPC with its codes (OK, PERMISSION_DENIED, NOT_FOUND); the disappearing timer; ownership passing when the owner leaves.
 */
import { expectFailure, expectOk } from '../support/session-api.js';
import { grpc, grpcClient, unary } from '../support/grpc-client.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import { GroupCalls, addressOf, expectOutcome } from './group-support.js';

const { service, api } = serviceForThisFile();
const groups = new GroupCalls(() => api);

type Role = 'owner' | 'admin' | 'member' | 'outsider';
let people: Record<Role | 'admin2' | 'member2', SignedIn>;

beforeAll(async () => {
  const [owner, admin, admin2, member, member2, outsider] = await Promise.all(
    Array.from({ length: 6 }, () => signIn(service.baseUrl)),
  );
  people = {
    owner: owner!,
    admin: admin!,
    admin2: admin2!,
    member: member!,
    member2: member2!,
    outsider: outsider!,
  };
});

/** A fresh group: the owner, two admins, two members. */
async function staffedGroup(): Promise<string> {
  const groupId = await groups.create(people.owner, [
    people.admin,
    people.admin2,
    people.member,
    people.member2,
  ]);
  expectOk(await groups.promote(people.owner, groupId, addressOf(people.admin)));
  expectOk(await groups.promote(people.owner, groupId, addressOf(people.admin2)));
  return groupId;
}

const roleOf = async (groupId: string, address: string) =>
  (
    expectOk(await groups.get(people.owner, groupId)).members as { address: string; role: string }[]
  ).find((member) => member.address === address)?.role;

describe('promote and demote: the owner only', () => {
  // [actor, target, expected status]
  test.each([
    ['owner', 'member', 200],
    ['owner', 'admin2', 200],
    ['admin', 'member', 403],
    ['member', 'member2', 403],
    ['outsider', 'member', 404],
  ] as const)('%s promotes %s: %i', async (actor, target, status) => {
    const groupId = await staffedGroup();
    const body = expectOutcome(
      await groups.promote(people[actor], groupId, addressOf(people[target])),
      status,
    );
    if (status === 200)
      expect(body.member).toMatchObject({ address: addressOf(people[target]), role: 'admin' });
    expect(await roleOf(groupId, addressOf(people[target]))).toBe(
      status === 200 || (target as string) === 'admin2' ? 'admin' : 'member',
    );
  });

  test.each([
    ['owner', 'admin', 200],
    ['owner', 'member', 200],
    ['admin', 'admin2', 403],
    ['member', 'admin', 403],
    ['outsider', 'admin', 404],
  ] as const)('%s demotes %s: %i', async (actor, target, status) => {
    const groupId = await staffedGroup();
    const before = await roleOf(groupId, addressOf(people[target]));
    const body = expectOutcome(
      await groups.demote(people[actor], groupId, addressOf(people[target])),
      status,
    );
    if (status === 200)
      expect(body.member).toMatchObject({ address: addressOf(people[target]), role: 'member' });
    expect(await roleOf(groupId, addressOf(people[target]))).toBe(
      status === 200 ? 'member' : before,
    );
  });

  it("the owner's role cannot change; unknown groups and non-member or malformed targets are 404", async () => {
    const groupId = await staffedGroup();
    expectFailure(
      await groups.promote(people.owner, groupId, addressOf(people.owner)),
      403,
      'FORBIDDEN',
    );
    expectFailure(
      await groups.demote(people.owner, groupId, addressOf(people.owner)),
      403,
      'FORBIDDEN',
    );
    expectFailure(
      await groups.promote(people.owner, groupId, addressOf(people.outsider)),
      404,
      'NOT_FOUND',
    );
    expectFailure(await groups.promote(people.owner, groupId, '0x1234'), 404, 'NOT_FOUND');
    expectFailure(
      await groups.promote(people.owner, 'no-such-group', addressOf(people.member)),
      404,
      'NOT_FOUND',
    );
    expectFailure(
      await groups.demote(people.owner, 'x'.repeat(65), addressOf(people.member)),
      404,
      'NOT_FOUND',
    );
  });
});

describe('remove: the owner removes anyone else, an admin plain members only', () => {
  test.each([
    ['owner', 'admin', 200],
    ['owner', 'member', 200],
    ['admin', 'member', 200],
    ['admin', 'admin2', 403],
    ['admin', 'owner', 403],
    ['member', 'member2', 403],
    ['member', 'admin', 403],
    ['outsider', 'member', 404],
  ] as const)('%s removes %s: %i', async (actor, target, status) => {
    const groupId = await staffedGroup();
    const body = expectOutcome(
      await groups.remove(people[actor], groupId, addressOf(people[target])),
      status,
    );
    if (status === 200) {
      expect(body).toMatchObject({ address: addressOf(people[target]), member_count: 4 });
      expectFailure(await groups.get(people[target], groupId), 404, 'NOT_FOUND');
    } else {
      expect(await roleOf(groupId, addressOf(people[target]))).toBeDefined();
    }
  });

  it('refuses removing oneself or a malformed address (400) and a non-member (404)', async () => {
    const groupId = await staffedGroup();
    expectFailure(
      await groups.remove(people.owner, groupId, addressOf(people.owner)),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await groups.remove(people.admin, groupId, 'not-an-address'),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await groups.remove(people.owner, groupId, addressOf(people.outsider)),
      404,
      'NOT_FOUND',
    );
  });
});

describe('invite and rename: the owner and admins', () => {
  test.each([
    ['owner', 200],
    ['admin', 200],
    ['member', 403],
    ['outsider', 404],
  ] as const)('%s creates an invite: %i', async (actor, status) => {
    const groupId = await staffedGroup();
    const body = expectOutcome(
      await groups.invite(people[actor], groupId, { max_uses: 3 }),
      status,
    );
    if (status === 200)
      expect(body).toMatchObject({
        invite_code: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
        max_uses: 3,
      });
  });

  test.each([
    ['owner', 200],
    ['admin', 200],
    ['member', 403],
    ['outsider', 404],
  ] as const)('%s revokes an invite: %i', async (actor, status) => {
    const groupId = await staffedGroup();
    const code = await groups.inviteCode(people.owner, groupId);
    expectOutcome(
      await api.delete(`/api/v1/groups/${groupId}/invites/${code}`, {
        authorization: `Bearer ${people[actor].accessToken}`,
      }),
      status,
    );
    const join = await groups.join(people.outsider, code);
    if (status === 200) expectFailure(join, 404, 'NOT_FOUND');
    else expectOk(join);
  });

  test.each([
    ['owner', 200],
    ['admin', 200],
    ['member', 403],
    ['outsider', 404],
  ] as const)('%s renames the group: %i', async (actor, status) => {
    const groupId = await staffedGroup();
    const body = expectOutcome(
      await groups.rename(people[actor], groupId, `  Renamed by ${actor} `),
      status,
    );
    if (status === 200)
      expect(body.group).toMatchObject({ id: groupId, name: `Renamed by ${actor}` });
    const name = expectOk(await groups.get(people.owner, groupId)).group.name;
    expect(name).toBe(status === 200 ? `Renamed by ${actor}` : 'Team');
  });

  it('refuses bad invite parameters and names', async () => {
    const groupId = await staffedGroup();
    expectFailure(
      await groups.invite(people.owner, groupId, { max_uses: 1001 }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await groups.invite(people.owner, groupId, { expires_in_seconds: 59 }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await groups.invite(people.owner, groupId, { expires_in_seconds: 2_592_001 }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(await groups.rename(people.owner, groupId, '   '), 400, 'INVALID_ARGUMENT');
    expectFailure(
      await groups.rename(people.owner, groupId, 'n'.repeat(65)),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.delete(`/api/v1/groups/${groupId}/invites/not-a-code`, {
        authorization: `Bearer ${people.owner.accessToken}`,
      }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('leaving', () => {
  it('passes ownership to the longest-standing admin, else member; the last member ends the group', async () => {
    const groupId = await groups.create(people.owner, [people.member, people.admin, people.admin2]);
    expectOk(await groups.promote(people.owner, groupId, addressOf(people.admin2)));
    expectOk(await groups.promote(people.owner, groupId, addressOf(people.admin)));
    // Both admins joined at creation; the earlier promotion does not matter, joining time does (ties by record id).
    const left = expectOk(await groups.leave(people.owner, groupId));
    expect([addressOf(people.admin), addressOf(people.admin2)]).toContain(left.new_owner_address);
    expect(left.group_deleted).toBe(false);
    const newOwner =
      left.new_owner_address === addressOf(people.admin) ? people.admin : people.admin2;
    const otherAdmin = newOwner === people.admin ? people.admin2 : people.admin;
    const group = expectOk(await groups.get(newOwner, groupId));
    expect(group.group).toMatchObject({
      owner_address: addressOf(newOwner),
      my_role: 'owner',
      member_count: 3,
    });
    expect(group.members.map((member: { role: string }) => member.role)).toEqual([
      'owner',
      'admin',
      'member',
    ]);
    expectFailure(await groups.get(people.owner, groupId), 404, 'NOT_FOUND');

    expectOk(await groups.leave(otherAdmin, groupId));
    expect(expectOk(await groups.leave(newOwner, groupId)).new_owner_address).toBe(
      addressOf(people.member),
    );
    const last = expectOk(await groups.leave(people.member, groupId));
    expect(last).toMatchObject({ group_deleted: true, new_owner_address: '' });
    expectFailure(await groups.get(people.member, groupId), 404, 'NOT_FOUND');
    expectFailure(await groups.leave(people.member, groupId), 404, 'NOT_FOUND');
  });

  it('a member who joined later by invite comes after the members of the creation', async () => {
    const groupId = await groups.create(people.owner, [people.member]);
    expectOk(await groups.join(people.member2, await groups.inviteCode(people.owner, groupId)));
    expect(expectOk(await groups.leave(people.owner, groupId)).new_owner_address).toBe(
      addressOf(people.member),
    );
  });
});

describe('native gRPC', () => {
  // The role table again, cell by cell, with the gRPC codes: [actor, rpc, target, expected status].
  test.each([
    ...(['PromoteMember', 'DemoteMember'] as const).flatMap((rpc) => [
      ['owner', rpc, rpc === 'PromoteMember' ? 'member' : 'admin', 'OK'],
      ['admin', rpc, rpc === 'PromoteMember' ? 'member' : 'admin2', 'PERMISSION_DENIED'],
      ['member', rpc, rpc === 'PromoteMember' ? 'member2' : 'admin', 'PERMISSION_DENIED'],
      ['outsider', rpc, 'member', 'NOT_FOUND'],
    ]),
    ['owner', 'RemoveMember', 'admin', 'OK'],
    ['admin', 'RemoveMember', 'member', 'OK'],
    ['admin', 'RemoveMember', 'admin2', 'PERMISSION_DENIED'],
    ['member', 'RemoveMember', 'member2', 'PERMISSION_DENIED'],
    ['outsider', 'RemoveMember', 'member', 'NOT_FOUND'],
    ...(['CreateGroupInvite', 'RenameGroup'] as const).flatMap((rpc) => [
      ['owner', rpc, '', 'OK'],
      ['admin', rpc, '', 'OK'],
      ['member', rpc, '', 'PERMISSION_DENIED'],
      ['outsider', rpc, '', 'NOT_FOUND'],
    ]),
  ] as [Role, string, string, keyof typeof grpc.status][])(
    '%s calls %s (%s): %s',
    async (actor, rpc, target, expected) => {
      const groupId = await staffedGroup();
      const client = grpcClient(
        service.grpcAddress,
        'service/v1/groups.proto',
        'service.v1.GroupsService',
      );
      const metadata = new grpc.Metadata();
      metadata.set('authorization', `Bearer ${people[actor].accessToken}`);
      const request = {
        group_id: groupId,
        ...(target ? { address: addressOf(people[target as keyof typeof people]) } : {}),
        ...(rpc === 'RenameGroup' ? { name: 'Renamed' } : {}),
      };
      try {
        const code = await unary(client, rpc, request, metadata).then(
          () => 'OK',
          (error: grpc.ServiceError) => grpc.status[error.code],
        );
        expect(code).toBe(expected);
      } finally {
        client.close();
      }
    },
  );

  it('answers PERMISSION_DENIED for 403 and NOT_FOUND for 404, and works for the allowed caller', async () => {
    const groupId = await staffedGroup();
    const client = grpcClient(
      service.grpcAddress,
      'service/v1/groups.proto',
      'service.v1.GroupsService',
    );
    const as = (session: SignedIn) => {
      const metadata = new grpc.Metadata();
      metadata.set('authorization', `Bearer ${session.accessToken}`);
      return metadata;
    };
    const failure = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (error: grpc.ServiceError) => error,
      );
    try {
      const denied = await failure(
        unary(
          client,
          'PromoteMember',
          { group_id: groupId, address: addressOf(people.member) },
          as(people.admin),
        ),
      );
      expect(denied?.code).toBe(grpc.status.PERMISSION_DENIED);
      const hidden = await failure(
        unary(client, 'GetGroup', { group_id: groupId }, as(people.outsider)),
      );
      expect(hidden?.code).toBe(grpc.status.NOT_FOUND);
      const notMember = await failure(
        unary(
          client,
          'PromoteMember',
          { group_id: groupId, address: addressOf(people.outsider) },
          as(people.owner),
        ),
      );
      expect(notMember?.code).toBe(grpc.status.NOT_FOUND);
      const removeDenied = await failure(
        unary(
          client,
          'RemoveMember',
          { group_id: groupId, address: addressOf(people.admin2) },
          as(people.admin),
        ),
      );
      expect(removeDenied?.code).toBe(grpc.status.PERMISSION_DENIED);
      const promoted = await unary(
        client,
        'PromoteMember',
        { group_id: groupId, address: addressOf(people.member) },
        as(people.owner),
      );
      expect(promoted).toMatchObject({
        success: true,
        member: { address: addressOf(people.member), role: 'admin' },
      });
      const invite = await unary(
        client,
        'CreateGroupInvite',
        { group_id: groupId, max_uses: 1 },
        as(people.admin),
      );
      const joined = await unary(
        client,
        'JoinGroup',
        { invite_code: invite.invite_code },
        as(people.outsider),
      );
      expect(joined).toMatchObject({
        success: true,
        already_member: false,
        group: { id: groupId, my_role: 'member', member_count: 6 },
      });
      const renameDenied = await failure(
        unary(client, 'RenameGroup', { group_id: groupId, name: 'x' }, as(people.outsider)),
      );
      expect(renameDenied?.code).toBe(grpc.status.PERMISSION_DENIED);
    } finally {
      client.close();
    }
  });
});

describe('disappearing timer: the owner and admins', () => {
  test.each([
    ['owner', 200],
    ['admin', 200],
    ['member', 403],
    ['outsider', 404],
  ] as const)('%s sets the timer: %i', async (actor, status) => {
    const groupId = await staffedGroup();
    expectOutcome(
      await api.post(
        '/api/v1/chat/disappearing-timer',
        { group_id: groupId, disappearing_timer_seconds: 3600 },
        { authorization: `Bearer ${people[actor].accessToken}` },
      ),
      status,
    );
    expect(
      expectOk(await groups.get(people.member, groupId)).group.disappearing_timer_seconds,
    ).toBe(status === 200 ? 3600 : 0);
  });
});
