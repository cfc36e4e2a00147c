import { createServer, type Server, Socket } from 'node:net';

/**
 * How the proxy treats the database: `up` forwards; `refuse` cuts every open connection and stops
 * listening (new connections get ECONNREFUSED, as from a stopped server); `blackhole` cuts every
 * open connection and accepts new ones without ever answering (a network that drops packets).
 */
export type ProxyMode = 'up' | 'refuse' | 'blackhole';

export interface DbProxy {
  /** `url` (a postgres:// URL of the real server) with the proxy's host and port. */
  url(target: string): string;
  readonly port: number;
  readonly mode: ProxyMode;
  /** Connections accepted so far (each one a client session of some service). */
  readonly accepted: number;
  /** Takes the database away: open connections are destroyed, new ones refused or blackholed. */
  cut(mode?: Exclude<ProxyMode, 'up'>): Promise<void>;
  /** Brings it back: connections made from now on reach the server again. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of PostgreSQL (tests only), so that a test can take the database away from
 * the service processes and bring it back without touching the shared server.
 */
export async function startDbProxy(targetUrl: string): Promise<DbProxy> {
  const target = new URL(targetUrl);
  const targetHost = target.hostname;
  const targetPort = Number(target.port || 5432);
  const open = new Set<Socket>();
  let mode: ProxyMode = 'up';
  let accepted = 0;
  let port = 0;

  const onConnection = (client: Socket) => {
    accepted += 1;
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => client.destroy());
    // Blackholed: read and drop everything, never answer, until restore() destroys it.
    if (mode !== 'up') {
      client.resume();
      return;
    }
    const upstream = new Socket();
    open.add(upstream);
    upstream.on('close', () => {
      open.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    upstream.connect(targetPort, targetHost);
    client.pipe(upstream);
    upstream.pipe(client);
  };

  let server: Server = createServer(onConnection);
  const listen = (s: Server, p: number) =>
    new Promise<number>((resolve, reject) => {
      s.once('error', reject);
      s.listen(p, '127.0.0.1', () => {
        s.off('error', reject);
        resolve((s.address() as { port: number }).port);
      });
    });
  port = await listen(server, 0);

  const destroyAll = () => {
    for (const socket of open) socket.destroy();
    open.clear();
  };
  const stopListening = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      // close() waits for open connections to end: they are destroyed right after.
      destroyAll();
    });

  return {
    url(url: string) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    get port() {
      return port;
    },
    get mode() {
      return mode;
    },
    get accepted() {
      return accepted;
    },
    async cut(next = 'refuse') {
      mode = next;
      if (next === 'refuse') {
        await stopListening();
      } else {
        destroyAll();
        if (!server.listening) {
          server = createServer(onConnection);
          await listen(server, port);
        }
      }
    },
    async restore() {
      mode = 'up';
      // Blackholed connections end now, so whoever waits on them tries again at once.
      destroyAll();
      if (!server.listening) {
        server = createServer(onConnection);
        await listen(server, port);
      }
    },
    async close() {
      mode = 'refuse';
      await stopListening();
    },
  };
}
