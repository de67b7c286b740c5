/**
 * The sign-in form: an embedded wallet made here (its key kept in this browser) or a browser
 * wallet (EIP-1193, e.g. MetaMask), a username for a first sign-in, and Sign-In with Ethereum
 * for this page's host. The session is the service's cookie (HttpOnly, SameSite, CSRF token).
 */
import {
  ApiError,
  eip1193Signer,
  newPrivateKey,
  privateKeySigner,
  signIn,
  type CookieSession,
  type Eip1193Provider,
  type WalletSigner,
} from '../src/index.js';
import { element, labelledInput, setStatus } from './dom.js';
import { embeddedWalletKey, saveEmbeddedWalletKey } from './local-state.js';

export function showSignIn(
  main: HTMLElement,
  onSignedIn: (session: CookieSession, address: string, wallet: WalletSigner) => void,
): void {
  main.className = 'single';
  let signer: WalletSigner | undefined;
  const walletLine = element('p', { id: 'wallet' }, 'No wallet yet.');
  const useSigner = async (chosen: WalletSigner) => {
    signer = chosen;
    walletLine.textContent = `Wallet: ${await chosen.address()}`;
  };
  const saved = embeddedWalletKey();
  if (saved) void useSigner(privateKeySigner(saved));

  const create = element('button', { type: 'button' }, 'Create a wallet in this browser');
  create.addEventListener('click', () => {
    const key = newPrivateKey();
    saveEmbeddedWalletKey(key);
    void useSigner(privateKeySigner(key));
  });
  const ethereum = (globalThis as { ethereum?: Eip1193Provider }).ethereum;
  const connect = element(
    'button',
    { type: 'button', disabled: !ethereum },
    'Connect a browser wallet',
  );
  connect.addEventListener('click', () => void useSigner(eip1193Signer(ethereum!)));

  const [usernameLabel, username] = labelledInput('Username (first sign-in only)', 'username');
  const submit = element('button', { type: 'submit' }, 'Sign in');
  const form = element('form', {}, usernameLabel, username, submit);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const wallet = signer;
    if (!wallet) return setStatus('Create or connect a wallet first.');
    setStatus('Signing in…');
    signIn({
      baseUrl: location.origin,
      signer: wallet,
      mode: 'cookie',
      siwe: {
        domain: location.host,
        uri: location.href,
        statement: 'Sign in to the messaging app.',
      },
      ...(username.value ? { registration: { username: username.value.trim() } } : {}),
      deviceName: navigator.userAgent.slice(0, 64),
    }).then(
      ({ session, user }) => onSignedIn(session, user.address, wallet),
      (error: Error) => setStatus(`Sign-in failed: ${signInFailure(error)}`),
    );
  });
  main.replaceChildren(
    element('section', { 'aria-label': 'Sign in' }, walletLine, create, connect, form),
  );
  setStatus('Signed out');
}

/** Why a sign-in failed, in words; the spec's sign-in limit (a burst of 2, then 5 a minute per IP) says when to try again. */
function signInFailure(error: Error): string {
  if (!(error instanceof ApiError) || error.status !== 429) return error.message;
  return `too many sign-ins from this address, try again in ${error.retryAfterSeconds ?? 60} s`;
}
