/**
 * The reference web app's entry: resumes the browser's cookie session if it has one, else
 * shows the sign-in form, then the chats. Served by the service at /app/ (built by
 * `npm run build`, scripts/build-web-app.mjs).
 */
import { CookieSession, Messenger, eip1193Signer, privateKeySigner } from '../src/index.js';
import type { Eip1193Provider, CookieSession as Session, WalletSigner } from '../src/index.js';
import { ChatView } from './chat-view.js';
import { setStatus } from './dom.js';
import { openCipher } from './e2ee.js';
import { embeddedWalletKey, localPlaintexts } from './local-state.js';
import { showSignIn } from './sign-in-view.js';

const main = document.getElementById('main')!;

async function startChats(
  session: Session,
  address: string,
  wallet: WalletSigner | undefined,
): Promise<void> {
  const self = address.toLowerCase();
  setStatus('Opening end-to-end encryption…');
  const cipher = await openCipher(session, self, wallet);
  const messenger = new Messenger(session, cipher, self, localPlaintexts(self));
  new ChatView(main, session, messenger, self).start();
}

/** The wallet of a resumed session: the embedded one kept here, else a browser wallet if any. */
function resumedWallet(): WalletSigner | undefined {
  const key = embeddedWalletKey();
  if (key) return privateKeySigner(key);
  const ethereum = (globalThis as { ethereum?: Eip1193Provider }).ethereum;
  return ethereum ? eip1193Signer(ethereum) : undefined;
}

const fail = (error: Error) => setStatus(`Error: ${error.message}`);

CookieSession.resume(location.origin)
  .then((resumed) => {
    if (resumed) return startChats(resumed.session, resumed.user.address, resumedWallet());
    showSignIn(
      main,
      (session, address, wallet) => void startChats(session, address, wallet).catch(fail),
    );
  }, fail)
  .catch(fail);
