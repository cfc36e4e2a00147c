import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { curlCommand, shellQuote } from './curl';
import { CopyAsCurl } from './pages/PlaygroundCurl';
import { renderWithContext } from './test-utils';

/** The words a POSIX shell makes of `command` (unquoted text, '…' literally, "…" without escapes). */
function shellWords(command: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const c = command.charAt(i);
    if (c === ' ') {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "'" || c === '"') {
      const end = command.indexOf(c, i + 1);
      if (end < 0) throw new Error(`Unterminated ${c} at ${i}`);
      word = (word ?? '') + command.slice(i + 1, end);
      i = end;
    } else {
      if (c === '\\' || c === '$' || c === '`') throw new Error(`Unquoted ${c} at ${i}`);
      word = (word ?? '') + c;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

const url = 'http://127.0.0.1:4242/base/api/admin/playground/advanced';
const body = {
  environments: ['development', 'production'],
  projects: '*',
  context: { appName: 'web', userId: "o'brien", properties: { note: `it's "quoted" $HOME \`x\`` } },
};

describe('curlCommand', () => {
  it('quotes a single quote for a POSIX shell', () => {
    expect(shellQuote("o'brien")).toBe(`'o'"'"'brien'`);
    expect(shellWords(shellQuote("o'brien"))).toEqual(["o'brien"]);
    const command = curlCommand(url, body);
    expect(command).toContain(`"userId":"o'"'"'brien"`);
    expect(command.startsWith(`curl -X POST '${url}' `)).toBe(true);
  });

  it('gives the shell the URL, the headers and JSON that parses back to the body; no cookie', () => {
    const command = curlCommand(url, body);
    expect(shellWords(command)).toEqual([
      'curl',
      '-X',
      'POST',
      url,
      '-H',
      'Content-Type: application/json',
      '-H',
      'Authorization: <YOUR_API_TOKEN>',
      '--data',
      JSON.stringify(body),
    ]);
    const data = shellWords(command).at(-1) ?? '';
    expect(JSON.parse(data)).toEqual(body);
    expect(command.toLowerCase()).not.toContain('cookie');
    expect(command).not.toContain(' -b ');
  });
});

describe('CopyAsCurl', () => {
  const expected = () => curlCommand(new URL('api/admin/playground/advanced', document.baseURI).href, body);
  const clipboard = (writeText: (text: string) => Promise<void>) =>
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
  afterEach(() => vi.restoreAllMocks());

  it('copies the command to the clipboard', async () => {
    const writeText = vi.fn(async (_text: string) => {});
    clipboard(writeText);
    renderWithContext(<CopyAsCurl body={() => body} />);
    fireEvent.click(screen.getByRole('button', { name: 'Copy as curl' }));
    await waitFor(() => expect(writeText).toHaveBeenCalledTimes(1));
    expect(writeText.mock.calls[0]?.[0]).toBe(expected());
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('shows the command in a read-only field when the clipboard is refused', async () => {
    clipboard(async () => {
      throw new DOMException('Denied', 'NotAllowedError');
    });
    renderWithContext(<CopyAsCurl body={() => body} />);
    fireEvent.click(screen.getByRole('button', { name: 'Copy as curl' }));
    const field = (await screen.findByLabelText('curl command')) as HTMLTextAreaElement;
    expect(field.value).toBe(expected());
    expect(field.readOnly).toBe(true);
    expect(JSON.parse(shellWords(field.value).at(-1) ?? '')).toEqual(body);
  });

  it('reports an invalid form instead of copying', async () => {
    const writeText = vi.fn(async (_text: string) => {});
    clipboard(writeText);
    const onError = vi.fn();
    renderWithContext(
      <CopyAsCurl
        body={() => {
          throw new Error('Pick at least one environment.');
        }}
        onError={onError}
      />,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Copy as curl' }));
    await waitFor(() => expect(onError).toHaveBeenCalledTimes(1));
    expect(writeText).not.toHaveBeenCalled();
  });
});
