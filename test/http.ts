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
