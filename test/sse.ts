import http from 'node:http';

export interface SseMessage {
  event?: string;
  id?: string;
  data?: string;
}

/** An open server-sent-events response, read as it arrives (test helper). */
export interface SseStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The raw body so far, for error responses. */
  text: () => string;
  messages: SseMessage[];
  comments: string[];
  ended: Promise<void>;
  /** The first message (from the start) that matches, waiting up to `ms`. */
  next(match: (m: SseMessage) => boolean, ms?: number): Promise<SseMessage>;
  close(): void;
}

export function openSse(url: string, headers: Record<string, string>): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      let buffer = '';
      let raw = '';
      const messages: SseMessage[] = [];
      const comments: string[] = [];
      const waiters = new Set<() => void>();
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        raw += chunk;
        buffer += chunk;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const message: SseMessage = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            const [, field, value] = /^(event|id|data): ?(.*)$/.exec(line) ?? [];
            if (field) message[field as keyof SseMessage] = value;
          }
          if (Object.keys(message).length > 0) messages.push(message);
          end = buffer.indexOf('\n\n');
        }
        for (const wake of waiters) wake();
      });
      const ended = new Promise<void>((done) => res.on('close', done));
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        text: () => raw,
        messages,
        comments,
        ended,
        next: (match, ms = 5000) =>
          new Promise((found, fail) => {
            const look = () => {
              const hit = messages.find(match);
              if (!hit) return;
              clearTimeout(timer);
              waiters.delete(look);
              found(hit);
            };
            const timer = setTimeout(() => {
              waiters.delete(look);
              fail(new Error(`no matching SSE message in ${ms} ms; got ${JSON.stringify(messages)}`));
            }, ms);
            waiters.add(look);
            look();
          }),
        close: () => request.destroy(),
      });
    });
    request.on('error', reject);
  });
}
