/**
 * The app's `MessageCipher`: the SDK's end-to-end encryption (client/src/crypto/, X3DH, Double
 * Ratchet, sender keys) for the signed-in account, its keys and sessions kept in this browser
 * (localStorage, per wallet) so that a reload still opens what arrives, and its key bundle
 * published (first run) or topped up with one-time prekeys on every start. The app sends no
 * sealed-sender messages, so it pins no sender-certificate keys.
 */
import {
  createMessageCipher,
  LocalStorageKeyStore,
  type AuthorizedSession,
  type E2eeClient,
  type WalletSigner,
} from '../src/index.js';

/**
 * The service's brand name (its SERVICE_NAME), which the key binding the wallet signs names:
 * the service writes it into the page it serves (src/ops/web-app/web-app-files.ts).
 */
function serviceName(): string {
  const name = document.querySelector<HTMLMetaElement>('meta[name="service-name"]')?.content;
  if (!name) throw new Error('this page was not served by the messaging service (no service name)');
  return name;
}

/**
 * Opens the cipher of `self` (lowercase). `wallet` signs the key binding, asked only on this
 * browser's first start for the account; after a reload without the wallet at hand (a browser
 * wallet not connected yet) the stored binding is used.
 */
export async function openCipher(
  session: AuthorizedSession,
  self: string,
  wallet: WalletSigner | undefined,
): Promise<E2eeClient> {
  const cipher = await createMessageCipher({
    api: session,
    signer: {
      address: self,
      // Asked for (and the wallet's address with it) only when a binding must be made.
      signMessage: async (message) => {
        if (!wallet || (await wallet.address()).toLowerCase() !== self)
          throw new Error(`connect the wallet ${self} to publish this browser's keys`);
        return wallet.signMessage(message);
      },
    },
    store: new LocalStorageKeyStore(self, 'messaging-app:e2ee'),
    serviceName: serviceName(),
  });
  await cipher.syncKeys();
  return cipher;
}
