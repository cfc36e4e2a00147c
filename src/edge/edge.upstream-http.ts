import type { ClientDocument } from './edge.index.js';
import type { EdgeToken } from './edge.tokens.js';

/** How long one upstream request may take before it counts as failed. */
const TIMEOUT_MS = 5_000;
/** The client specification the replica speaks upstream: segments by id, not inlined. */
const CLIENT_SPEC = '5.2.0';

export type FetchResult =
  | { status: 'changed'; document: ClientDocument; etag: string | undefined }
  | { status: 'unchanged' }
  | { status: 'refused'; code: number };

/** What a replica asks of its upstream: an HTTP server (`Upstream`) or a file (edge.offline.ts). */
export type UpstreamApi = Pick<Upstream, 'validate' | 'accepts' | 'features' | 'bulkMetrics' | 'stream'>;

/** The replica's requests to its upstream (this service or an Unleash server). */
export class Upstream {
  readonly root: string;

  constructor(
    url: string,
    private readonly instanceId: string,
  ) {
    this.root = url.replace(/\/+$/, '');
  }

  headers(token?: string): Record<string, string> {
    return {
      'user-agent': 'flagship-edge',
      'unleash-appname': 'flagship-edge',
      'unleash-instanceid': this.instanceId,
      'unleash-sdk-type': 'edge',
      ...(token === undefined ? {} : { authorization: token }),
    };
  }

  /** `POST /edge/validate`: the given tokens that are valid SDK tokens. Throws when unreachable. */
  async validate(tokens: string[]): Promise<EdgeToken[]> {
    const response = await fetch(`${this.root}/edge/validate`, {
      method: 'POST',
      headers: { ...this.headers(), 'content-type': 'application/json' },
      body: JSON.stringify({ tokens }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (!response.ok) throw new Error(`upstream /edge/validate answered ${response.status}`);
    const body = (await response.json()) as {
      tokens?: { token: string; type: string; environment: string; projects: string[] }[];
    };
    return (body.tokens ?? []).flatMap((t): EdgeToken[] => {
      // Unleash spells backend tokens `client` or `backend`, in either case; admin tokens are no use here.
      const type = /^(client|backend)$/i.test(t.type)
        ? 'client'
        : /^frontend$/i.test(t.type)
          ? 'frontend'
          : undefined;
      return type ? [{ token: t.token, type, environment: t.environment, projects: t.projects }] : [];
    });
  }

  /**
   * Whether the upstream's SDK API still takes `token`, asked with the token itself: a client
   * token asks for one flag by name (a 404 is a yes), a frontend token for its flags. Needed
   * because Unleash 8.2's `/edge/validate` answers from a token cache it never reloads, so it
   * went on vouching for a deleted token for minutes after its SDK API refused it
   * (test/edge-unleash.test.ts). Throws when unreachable or when the answer tells nothing.
   */
  async accepts(token: EdgeToken): Promise<boolean> {
    const path = token.type === 'client' ? '/api/client/features/flagship-edge-token-check' : '/api/frontend';
    const response = await fetch(this.root + path, {
      headers: this.headers(token.token),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    await response.arrayBuffer();
    if (response.status === 401 || response.status === 403) return false;
    if (response.ok || response.status === 404) return true;
    throw new Error(`upstream ${path} answered ${response.status}`);
  }

  /** `GET /api/client/features` with the last ETag: the document when it changed. */
  async features(token: string, etag: string | undefined, intervalMs: number): Promise<FetchResult> {
    const response = await fetch(`${this.root}/api/client/features`, {
      headers: {
        ...this.headers(token),
        'unleash-client-spec': CLIENT_SPEC,
        'unleash-interval': String(intervalMs),
        ...(etag ? { 'if-none-match': etag } : {}),
      },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (response.status === 304) return { status: 'unchanged' };
    if (response.status === 401 || response.status === 403 || response.status === 404) {
      return { status: 'refused', code: response.status };
    }
    if (!response.ok) throw new Error(`upstream /api/client/features answered ${response.status}`);
    const document = (await response.json()) as ClientDocument;
    if (!Array.isArray(document?.features)) throw new Error('upstream sent no features array');
    return { status: 'changed', document, etag: response.headers.get('etag') ?? undefined };
  }

  /** `POST /api/client/metrics/bulk`; the status code (0 when unreachable). */
  async bulkMetrics(token: string, body: unknown): Promise<number> {
    try {
      const response = await fetch(`${this.root}/api/client/metrics/bulk`, {
        method: 'POST',
        headers: { ...this.headers(token), 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      await response.arrayBuffer();
      return response.status;
    } catch {
      return 0;
    }
  }

  /**
   * Opens `GET /api/client/streaming` and calls `onEvent` for each server-sent event until the
   * stream ends (resolves) or fails (rejects). `signal` closes it.
   */
  async stream(token: string, signal: AbortSignal, onEvent: (event: string) => void): Promise<void> {
    const response = await fetch(`${this.root}/api/client/streaming`, {
      headers: { ...this.headers(token), accept: 'text/event-stream' },
      signal,
    });
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      throw Object.assign(new Error(`upstream streaming answered ${response.status}`), {
        status: response.status,
      });
    }
    const decoder = new TextDecoder();
    let buffered = '';
    for await (const chunk of response.body) {
      buffered += decoder.decode(chunk as Uint8Array, { stream: true });
      let end = buffered.indexOf('\n\n');
      while (end >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const name = /^event:\s*(.*)$/m.exec(block)?.[1];
        if (name) onEvent(name.trim());
        end = buffered.indexOf('\n\n');
      }
    }
  }
}
