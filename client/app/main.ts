/**
 * The reference web app's entry: resumes the browser's cookie session if it has one, else
 * shows the sign-in form, then the chats. Served by the service at /app/ (built by
 * `npm run build`, scripts/build-web-app.mjs).
 */
import { CookieSession, Messenger } from '../src/index.js';
import type { CookieSession as Session } from '../src/index.js';
import { ChatView } from './chat-view.js';
import { openCipher } from './cipher.js';
import { setStatus } from './dom.js';
import { localPlaintexts } from './local-state.js';
import { showSignIn } from './sign-in-view.js';

const main = document.getElementById('main')!;

async function startChats(session: Session, address: string): Promise<void> {
  const self = address.toLowerCase();
  const cipher = await openCipher(session, self);
  const messenger = new Messenger(session, cipher, self, localPlaintexts(self));
  new ChatView(main, session, messenger, self).start();
}

const fail = (error: Error) => setStatus(`Error: ${error.message}`);

CookieSession.resume(location.origin)
  .then((resumed) => {
    if (resumed) return startChats(resumed.session, resumed.user.address);
    showSignIn(main, (session, address) => void startChats(session, address).catch(fail));
  }, fail)
  .catch(fail);
