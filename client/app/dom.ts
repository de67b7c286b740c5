/** A small element builder: the app has no framework, and needs none for a few forms and lists. */
export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  properties: Partial<HTMLElementTagNameMap[K]> & { [attribute: `aria-${string}`]: string } = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(properties)) {
    if (name.startsWith('aria-')) node.setAttribute(name, value as string);
    else (node as unknown as Record<string, unknown>)[name] = value;
  }
  node.append(...children);
  return node;
}

/** A labelled text input (the label names it for screen readers and for the browser tests). */
export function labelledInput(label: string, id: string): [HTMLLabelElement, HTMLInputElement] {
  const input = element('input', { type: 'text', id, autocomplete: 'off' });
  return [element('label', { htmlFor: id }, label), input];
}

export const short = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;

export function setStatus(text: string): void {
  document.getElementById('status')!.textContent = text;
}
