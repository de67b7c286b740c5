/**
 * The signed-in screen: the chat list, one open conversation live over the realtime
 * connection (messages, an image, reactions, edits, typing and read markers), and forms to
 * start a direct chat or a group. Every message is rendered once, by its id, whether it came
 * from history, live, or replayed after a reconnection or a reload.
 */
import {
  RealtimeConnection,
  createGroup,
  listChats,
  type Chat,
  type Conversation,
  type CookieSession,
  type EventDataMap,
  type Message,
  type Messenger,
  type OpenedMessage,
} from '../src/index.js';
import { element, labelledInput, setStatus, short } from './dom.js';
import { savePosition, savedPosition } from './local-state.js';

interface Shown {
  opened: OpenedMessage;
  reactions: Map<string, string>;
}

/** How long a typing indicator stays without a new `typing` event (the sender repeats every 3 s). */
const TYPING_SHOWN_MS = 6000;

export class ChatView {
  private open: Conversation | undefined;
  private readonly shown = new Map<string, Shown>();
  /**
   * The other members' read markers in the open conversation (the peer's alone in a direct
   * chat), as the service tells this account's senders (`message.read`).
   */
  private readonly readUpTo = new Map<string, number>();
  /** This account's read marker in the open conversation, as last sent. */
  private markedSequence = 0;
  private chats: Chat[] = [];
  private typingCleared: ReturnType<typeof setTimeout> | undefined;
  private readonly chatList = element('ul', { className: 'chats', 'aria-label': 'Chats' });
  private readonly messages = element('ol', {
    className: 'messages',
    'aria-label': 'Messages',
    'aria-live': 'polite',
  });
  private readonly title = element('h2', {}, 'No chat open');
  private readonly typing = element('p', { className: 'typing', 'aria-live': 'polite' });
  private readonly realtime: RealtimeConnection;

  constructor(
    private readonly main: HTMLElement,
    private readonly session: CookieSession,
    private readonly messenger: Messenger,
    private readonly self: string,
  ) {
    const position = savedPosition(self);
    this.realtime = new RealtimeConnection({
      api: session,
      baseUrl: location.origin,
      ...(position ? { position } : {}),
    });
    this.listen();
  }

  start(): void {
    this.main.className = '';
    this.main.replaceChildren(this.sidebar(), this.conversationPane());
    void this.refreshChats();
    this.realtime.start();
  }

  private listen(): void {
    const live = this.realtime;
    live.on('state', (state) => setStatus(`${short(this.self)} — ${state}`));
    live.on('position', (position) => savePosition(this.self, position));
    live.on('ended', () => location.reload());
    live.on('resync', async () => {
      await this.refreshChats();
      if (this.open) await this.loadHistory();
    });
    live.on('message.new', async ({ message }) => {
      // Every message is opened as it arrives, shown or not: a direct message may carry a
      // group's sender key, and each ratchet step is taken once, in this browser's store.
      const opened = await this.messenger.open(message);
      if (this.isOpen(message)) {
        if (message.senderAddress !== this.self) this.typing.textContent = '';
        return this.render(opened);
      }
      // Another chat (or a new one) changed: its unread count and place in the list.
      if (opened.content !== null || message.groupId) void this.refreshChats();
    });
    live.on('message.edited', async ({ message }) => {
      const opened =
        message.senderAddress === this.self
          ? await this.messenger.open(message)
          : await this.messenger.open(message, { fresh: true });
      if (this.isOpen(message)) this.render(opened);
    });
    live.on('message.reaction', async (reaction) => {
      const shown = this.shown.get(reaction.message_id);
      if (!shown || !this.open || reaction.ciphertext === null) return;
      const ciphertext = Uint8Array.from(atob(reaction.ciphertext), (c) => c.charCodeAt(0));
      const emoji = await this.messenger
        .openReaction(this.open, reaction.reactor_address, ciphertext)
        .catch(() => undefined);
      if (emoji) shown.reactions.set(reaction.reactor_address, emoji);
      this.render(shown.opened);
    });
    live.on('typing', (typing) => this.showTyping(typing));
    live.on('message.read', ({ conversation_id, reader_address, up_to_sequence }) => {
      if (reader_address === this.self || conversation_id !== this.openConversationId()) return;
      this.readUpTo.set(
        reader_address,
        Math.max(this.readUpTo.get(reader_address) ?? 0, up_to_sequence),
      );
      for (const shown of this.shown.values()) this.render(shown.opened);
    });
  }

  private showTyping({ from_address, group_id, state }: EventDataMap['typing']): void {
    const open = this.open;
    if (!open || from_address === this.self) return;
    const here =
      'groupId' in open ? group_id === open.groupId : !group_id && from_address === open.peer;
    if (!here) return;
    clearTimeout(this.typingCleared);
    this.typing.textContent = state === 'typing' ? `${short(from_address)} is typing…` : '';
    this.typingCleared = setTimeout(() => (this.typing.textContent = ''), TYPING_SHOWN_MS);
  }

  /** The open conversation's id, known from any of its messages shown. */
  private openConversationId(): string | undefined {
    return this.shown.values().next().value?.opened.message.conversationId;
  }

  private sidebar(): HTMLElement {
    const [peerLabel, peer] = labelledInput('Chat with (wallet address)', 'peer');
    const startChat = element('form', {}, peerLabel, peer, element('button', {}, 'Open chat'));
    startChat.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.openConversation({ peer: peer.value.trim().toLowerCase() }, short(peer.value));
    });
    const [nameLabel, name] = labelledInput('Group name', 'group-name');
    const [membersLabel, members] = labelledInput(
      'Members (addresses, comma-separated)',
      'members',
    );
    const newGroup = element(
      'form',
      {},
      nameLabel,
      name,
      membersLabel,
      members,
      element('button', {}, 'Create group'),
    );
    newGroup.addEventListener('submit', (event) => {
      event.preventDefault();
      const addresses = members.value.split(',').map((address) => address.trim().toLowerCase());
      void createGroup(this.session, name.value, addresses).then(({ group }) =>
        this.openConversation({ groupId: group!.id }, group!.name),
      );
    });
    const logout = element('button', { type: 'button' }, 'Sign out');
    logout.addEventListener('click', () => {
      this.realtime.stop();
      void this.session.logout().finally(() => location.reload());
    });
    return element(
      'section',
      { 'aria-label': 'Chats' },
      element('p', {}, `You: ${this.self}`),
      this.chatList,
      startChat,
      newGroup,
      logout,
    );
  }

  private conversationPane(): HTMLElement {
    const [textLabel, text] = labelledInput('Message', 'message');
    const composer = element('form', {}, textLabel, text, element('button', {}, 'Send'));
    composer.addEventListener('submit', (event) => {
      event.preventDefault();
      const conversation = this.open;
      if (!conversation || text.value === '') return;
      const body = text.value;
      text.value = '';
      void this.messenger.sendText(conversation, body).then(
        (sent) => this.render(sent),
        (error: Error) => setStatus(`Not sent: ${error.message}`),
      );
    });
    let typingSent = 0;
    text.addEventListener('input', () => {
      if (!this.open || Date.now() - typingSent < 3000) return;
      typingSent = Date.now();
      void this.messenger.typing(this.open, 'typing').catch(() => undefined);
    });
    const image = element('input', { type: 'file', id: 'image', accept: 'image/*' });
    image.addEventListener('change', () => {
      const file = image.files?.[0];
      const conversation = this.open;
      if (!file || !conversation) return;
      void file
        .arrayBuffer()
        .then((bytes) =>
          this.messenger.sendImage(conversation, new Uint8Array(bytes), file.type, file.name),
        )
        .then((sent) => this.render(sent));
    });
    return element(
      'section',
      { 'aria-label': 'Conversation' },
      this.title,
      this.messages,
      this.typing,
      composer,
      element('label', { htmlFor: 'image' }, 'Send an image'),
      image,
    );
  }

  private async refreshChats(): Promise<void> {
    this.chats = await listChats(this.session);
    this.showChats();
  }

  private showChats(): void {
    this.chatList.replaceChildren(
      ...this.chats.map((chat) => {
        const conversation: Conversation = chat.groupId
          ? { groupId: chat.groupId }
          : { peer: chat.peerAddress };
        const label = chat.title || short(chat.peerAddress || chat.groupId);
        const button = element(
          'button',
          { type: 'button' },
          chat.unreadCount ? `${label} (${chat.unreadCount})` : label,
        );
        button.addEventListener('click', () => void this.openConversation(conversation, label));
        return element('li', {}, button);
      }),
    );
  }

  private async openConversation(conversation: Conversation, label: string): Promise<void> {
    this.open = conversation;
    this.shown.clear();
    this.readUpTo.clear();
    this.markedSequence = 0;
    this.messages.replaceChildren();
    this.title.textContent = label;
    this.typing.textContent = '';
    await this.loadHistory();
  }

  /** Shows the open conversation's history and marks it read (once, up to its last message). */
  private async loadHistory(): Promise<void> {
    const { messages } = await this.messenger.history(this.open!);
    for (const opened of messages) this.render(opened, { markRead: false });
    const last = messages.filter(({ message }) => message.senderAddress !== this.self).at(-1);
    if (last) this.markRead(last.message);
    // Read now: the list shows no unread count for it (no need to ask the service).
    const id = this.openConversationId();
    for (const chat of this.chats) if (chat.conversationId === id) chat.unreadCount = 0;
    this.showChats();
  }

  /** Moves this account's read marker to `message` when it is past it (one request per move). */
  private markRead(message: Message): void {
    if (message.sequence <= this.markedSequence) return;
    this.markedSequence = message.sequence;
    void this.messenger.markRead(this.open!, message.id).catch(() => undefined);
  }

  private isOpen(message: Message): boolean {
    const open = this.open;
    if (!open) return false;
    if ('groupId' in open) return message.groupId === open.groupId;
    if (message.groupId) return false;
    const other =
      message.senderAddress === this.self ? message.recipientAddress : message.senderAddress;
    return other === open.peer;
  }

  /**
   * Shows `opened` in its place (a message already shown is replaced, never added twice) and,
   * unless told not to, marks it read when it is the other side's.
   */
  private render(opened: OpenedMessage, { markRead = true } = {}): void {
    const { message, content } = opened;
    // A direct message that only carried protocol state (a group's sender key) says nothing.
    if (content === null && !opened.error && message.ciphertext.length > 0 && !message.systemEvent)
      return;
    const mine = message.senderAddress === this.self;
    // The live copy of a message this browser just sent may come before the send's answer: the
    // text the send remembered is kept.
    if (mine && content === null && this.shown.get(message.id)?.opened.content) return;
    const shown = this.shown.get(message.id) ?? { opened, reactions: new Map<string, string>() };
    shown.opened = opened;
    this.shown.set(message.id, shown);
    const item = element('li', { className: mine ? 'mine' : '' });
    item.dataset.id = message.id;
    item.dataset.sequence = String(message.sequence);
    if (content?.type === 'text') item.append(element('span', { className: 'text' }, content.text));
    else if (content?.type === 'image') item.append(this.image(message.mediaId, content));
    else item.append(element('em', {}, message.deletedAt ? 'deleted' : 'cannot be shown'));
    const meta = [short(message.senderAddress), message.editedAt ? 'edited' : ''];
    if (mine) meta.push(this.readStatus(message));
    const reactions = [...shown.reactions.values()].join(' ');
    item.append(
      element(
        'div',
        { className: 'meta' },
        meta.filter(Boolean).join(' · '),
        reactions ? ` ${reactions}` : '',
      ),
    );
    item.append(this.actions(message, mine));
    const existing = this.messages.querySelector(`li[data-id="${message.id}"]`);
    if (existing) existing.replaceWith(item);
    else this.insertInOrder(item, message.sequence);
    if (!mine && markRead) this.markRead(message);
  }

  /** `read` once the peer has read it; in a group, how many members have. */
  private readStatus(message: Message): string {
    let readers = 0;
    for (const upTo of this.readUpTo.values()) if (upTo >= message.sequence) readers += 1;
    if (readers === 0) return '';
    return message.groupId ? `read by ${readers}` : 'read';
  }

  private insertInOrder(item: HTMLLIElement, sequence: number): void {
    const later = [...this.messages.children].find(
      (child) => Number((child as HTMLElement).dataset.sequence) > sequence,
    );
    this.messages.insertBefore(item, later ?? null);
  }

  private image(mediaId: string, content: Extract<OpenedMessage['content'], { type: 'image' }>) {
    const img = element('img', { alt: content.caption || 'image' });
    void this.messenger.openImage(mediaId, content.attachment).then((bytes) => {
      img.src = URL.createObjectURL(
        new Blob([bytes as Uint8Array<ArrayBuffer>], { type: content.attachment.contentType }),
      );
    });
    return img;
  }

  private actions(message: Message, mine: boolean): HTMLElement {
    const conversation = this.open!;
    const react = element('button', { type: 'button', 'aria-label': 'React with thumbs up' }, '👍');
    react.addEventListener('click', () => {
      void this.messenger.react(conversation, message.id, '👍');
      this.shown.get(message.id)?.reactions.set(this.self, '👍');
      const shown = this.shown.get(message.id);
      if (shown) this.render(shown.opened);
    });
    const buttons: HTMLElement[] = [react];
    if (mine) {
      const edit = element('button', { type: 'button' }, 'Edit');
      edit.addEventListener('click', () => {
        const text = prompt('New text');
        if (text)
          void this.messenger
            .edit(conversation, message.id, { type: 'text', text })
            .then(() => this.render({ message, content: { type: 'text', text } }));
      });
      buttons.push(edit);
    }
    return element('div', {}, ...buttons);
  }
}
