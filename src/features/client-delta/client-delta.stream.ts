import type { ServerResponse } from 'node:http';
import { AppError } from '../../platform/http/errors.js';
import type { DeltaEvent, DeltaScope, EnvironmentDelta } from './client-delta.ring.js';
import { type ClientDelta, cursorOf, eventsFrom } from './client-delta.service.js';

interface Stream {
  raw: ServerResponse;
  ring: EnvironmentDelta;
  scope: DeltaScope;
  /** The revision this stream's client has: the last event id sent, or what it came with. */
  cursor: number;
  /** Whether the credential the stream was opened with is still valid (a deleted token is not). */
  stillValid: () => Promise<boolean>;
}

/** One SSE message; `id:` only when it carries events (the SDK resends it as Last-Event-ID). */
export function sseMessage(event: 'unleash-connected' | 'unleash-updated', events: DeltaEvent[]): string {
  const id = cursorOf(events);
  return `event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify({ events })}\n\n`;
}

/**
 * The SSE streams of this instance (`GET /api/client/streaming`): at most `max` at once, each sent
 * what changed in its scope as soon as the delta engine has it, a comment every `keepAliveMs` (the
 * Node SDK gives up on a stream silent for 60 s), and ended when its token stops being valid
 * (checked whenever the revision moves, which a token deletion does, and with each keep-alive) or
 * when the app closes.
 */
export class Streams {
  private readonly open = new Set<Stream>();
  private timer: NodeJS.Timeout | undefined;
  private unlisten: (() => void) | undefined;

  constructor(
    private readonly delta: ClientDelta,
    private readonly options: { max: number; keepAliveMs: number },
  ) {}

  get size(): number {
    return this.open.size;
  }

  start() {
    this.unlisten = this.delta.onChange((changed) => this.changed(changed));
    this.timer = setInterval(() => this.keepAlive(), this.options.keepAliveMs);
    this.timer.unref();
  }

  /** Ends every stream (the app is closing); SDKs reconnect elsewhere with their Last-Event-ID. */
  stop() {
    this.unlisten?.();
    if (this.timer) clearInterval(this.timer);
    for (const stream of this.open) this.end(stream);
  }

  /** Refuses a stream over the cap before anything is written (a JSON error, not a stream). */
  admit() {
    if (this.open.size >= this.options.max) {
      throw new AppError(
        'ServiceUnavailableError',
        `This instance already serves ${this.options.max} streams (STREAMING_MAX_CONNECTIONS); try another instance or poll /api/client/delta.`,
      );
    }
  }

  /**
   * Starts the stream on `raw`: `unleash-connected` with the events after `lastEventId` if this
   * instance can still answer it (possibly none), else a hydration.
   */
  async accept(
    raw: ServerResponse,
    scope: DeltaScope,
    lastEventId: number | undefined,
    stillValid: () => Promise<boolean>,
    headers: Record<string, string>,
  ) {
    const ring = await this.delta.ring(scope.environment);
    const events = eventsFrom(ring, scope, lastEventId);
    const stream: Stream = {
      raw,
      ring,
      scope,
      cursor: cursorOf(events) ?? lastEventId ?? ring.revision,
      stillValid,
    };
    raw.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      // The connection ends with the stream, so that closing the app never waits for it.
      connection: 'close',
      // Proxies such as nginx must pass each message on at once.
      'x-accel-buffering': 'no',
    });
    raw.write(sseMessage('unleash-connected', events));
    this.open.add(stream);
    raw.on('close', () => this.open.delete(stream));
  }

  private changed(environments: Set<string>) {
    for (const stream of this.open) {
      if (environments.has(stream.ring.environment)) this.push(stream);
      this.check(stream);
    }
  }

  private push(stream: Stream) {
    const events = eventsFrom(stream.ring, stream.scope, stream.cursor);
    if (events.length === 0) return;
    stream.cursor = cursorOf(events) ?? stream.cursor;
    stream.raw.write(sseMessage('unleash-updated', events));
  }

  private keepAlive() {
    for (const stream of this.open) {
      stream.raw.write(': keep-alive\n\n');
      this.check(stream);
    }
  }

  private check(stream: Stream) {
    stream.stillValid().then(
      (valid) => {
        if (!valid) this.end(stream);
      },
      () => {}, // the database is away: keep the stream, check again later
    );
  }

  private end(stream: Stream) {
    this.open.delete(stream);
    stream.raw.end(() => stream.raw.socket?.destroy());
  }
}
