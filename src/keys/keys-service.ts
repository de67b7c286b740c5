/** KeysService (keys.proto): publishing, topping up, reading one's own and fetching others' key bundles. */
import type { HandlerContext } from '@connectrpc/connect';
import type {
  GetKeyBundleRequest,
  PublishKeyBundleRequest,
  UploadOneTimePreKeysRequest,
} from '../gen/service/v1/keys_pb.js';
import { requireCaller } from '../identity/auth/caller.js';
import { isWalletAddress } from '../accounts/wallet-address.js';
import { conflict, invalidArgument, notFound } from '../platform/errors/api-error.js';
import type { SignedBundle } from './bundle/signed-bundle.js';
import { fetchKeyBundle } from './fetch-bundle.js';
import type { FetchBundleDependencies } from './fetch-bundle.js';
import { checkedOneTimePreKeys } from './prekey-checks.js';
import { publishKeyBundle } from './publish-bundle.js';
import type { PublishBundleDependencies } from './publish-bundle.js';
import type { OneTimePreKey } from './store/one-time-prekeys.js';

export type KeysServiceDependencies = FetchBundleDependencies & PublishBundleDependencies;

/** The bundle as KeyBundle prints it (camelCase, as the spec does). */
const bundleView = (bundle: SignedBundle, oneTimePreKeys: readonly OneTimePreKey[]) => ({
  ...bundle,
  oneTimePreKeys: [...oneTimePreKeys],
});

export function createKeysService(deps: KeysServiceDependencies) {
  return {
    async getKeyBundle(request: GetKeyBundleRequest) {
      if (!isWalletAddress(request.address))
        throw invalidArgument('address must be a wallet address (0x + 40 hex digits)');
      const { bundle, oneTimePreKeys } = await fetchKeyBundle(deps, request.address.toLowerCase());
      return {
        success: true,
        message: 'Key bundle found',
        keyBundle: bundleView(bundle, oneTimePreKeys),
      };
    },

    async getOwnKeys(_request: unknown, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const [bundle, prekeys] = await Promise.all([
        deps.bundles.find(caller),
        deps.prekeys.list(caller),
      ]);
      if (!bundle) throw notFound('You have not published a key bundle');
      const { updatedAt, ...signed } = bundle;
      return {
        success: true,
        message: `${prekeys.length} one-time prekeys left`,
        keyBundle: bundleView(signed, prekeys),
        oneTimePreKeyCount: prekeys.length,
        updatedAt: updatedAt.toISOString(),
      };
    },

    async publishKeyBundle(request: PublishKeyBundleRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const published = await publishKeyBundle(deps, caller, request);
      return {
        success: true,
        message: 'Key bundle published',
        oneTimePreKeyCount: published.oneTimePreKeyCount,
        updatedAt: published.updatedAt.toISOString(),
      };
    },

    async uploadOneTimePreKeys(request: UploadOneTimePreKeysRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const keys = checkedOneTimePreKeys(request.oneTimePreKeys, 1);
      if (!(await deps.bundles.exists(caller)))
        throw conflict('Publish a key bundle before adding one-time prekeys');
      const result = await deps.prekeys.add(caller, keys);
      if (!result.added) throw invalidArgument(result.problem);
      await deps.bundles.touch(caller, new Date());
      return {
        success: true,
        message: `${keys.length} one-time prekeys added`,
        oneTimePreKeyCount: result.count,
      };
    },
  };
}
