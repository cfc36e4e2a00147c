import { type AddressInfo, connect } from 'node:net';
import type { FastifyInstance } from 'fastify';

export interface RawAnswer {
  status: number;
  head: string;
  body: unknown;
}

/**
 * Sends raw bytes to a listening app and parses the answer once the server closes the
 * connection: for what `inject` cannot send (oversized headers, a garbage request line).
 */
export function rawRequest(app: FastifyInstance, text: string): Promise<RawAnswer> {
  const { port } = app.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(text));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      try {
        resolve({ status: Number(head.split(' ')[1]), head, body: JSON.parse(body) });
      } catch {
        reject(new Error(`answer without a JSON body: ${answer.slice(0, 300)}`));
      }
    });
  });
}

export interface SlowUpload {
  /** The answer's status line (`HTTP/1.1 413 Payload Too Large`), or '' when none arrived. */
  statusLine: string;
  /** The answer's JSON body, when it had one. */
  body: unknown;
  /** Body bytes written before the upload ended (all of them, or fewer if the server closed). */
  sent: number;
  /** The socket error the sender met (`EPIPE`, `ECONNRESET`), if any. */
  error: string | undefined;
}

/**
 * Uploads a body of `total` bytes in 64 KiB chunks with `pauseMs` between them over a raw socket,
 * as a slow client does, reading nothing until it has sent everything (the answer stays in the
 * kernel meanwhile, where a reset of the connection throws it away), then reads the answer until
 * the server closes or `waitMs` has passed. `head` is the request line and headers without the
 * blank line; `chunked` frames the body with Transfer-Encoding: chunked (no Content-Length).
 */
export async function slowUpload(
  app: FastifyInstance,
  head: string,
  options: { total: number; chunked?: boolean; pauseMs?: number; waitMs?: number },
): Promise<SlowUpload> {
  const { port } = app.server.address() as AddressInfo;
  const socket = connect(port, '127.0.0.1');
  socket.pause();
  let error: string | undefined;
  socket.on('error', (e: NodeJS.ErrnoException) => {
    error ??= e.code ?? String(e);
  });
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const length = options.chunked ? 'transfer-encoding: chunked' : `content-length: ${options.total}`;
  socket.write(`${head}\r\n${length}\r\n\r\n`);
  const chunk = Buffer.alloc(64 * 1024, 'a');
  let sent = 0;
  while (sent < options.total && error === undefined && !socket.destroyed) {
    await new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? 2));
    const part = chunk.subarray(0, Math.min(chunk.length, options.total - sent));
    socket.write(
      options.chunked
        ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')])
        : part,
    );
    sent += part.length;
  }
  if (options.chunked && error === undefined && !socket.destroyed) socket.write('0\r\n\r\n');
  let answer = '';
  let answered!: () => void;
  const whole = new Promise<void>((resolve) => {
    answered = resolve;
  });
  socket.setEncoding('utf8');
  socket.on('data', (text: string) => {
    answer += text;
    // A whole answer (the service's have a Content-Length): done, even if the connection stays.
    const end = answer.indexOf('\r\n\r\n');
    const length = /\r\ncontent-length: (\d+)/i.exec(answer.slice(0, end));
    if (end >= 0 && length && Buffer.byteLength(answer.slice(end + 4)) >= Number(length[1])) answered();
  });
  socket.resume();
  const waited = new Promise<void>((resolve) => setTimeout(resolve, options.waitMs ?? 5000).unref());
  await Promise.race([closed, whole, waited]);
  socket.destroy();
  const [statusHead = '', rest = ''] = answer.split('\r\n\r\n');
  let body: unknown;
  try {
    body = JSON.parse(rest);
  } catch {
    body = undefined;
  }
  return { statusLine: statusHead.split('\r\n')[0] ?? '', body, sent, error };
}
