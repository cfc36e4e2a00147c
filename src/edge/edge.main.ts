import { hostname } from 'node:os';
import type { Config } from '../config.js';
import { buildEdgeApp } from './edge.app.js';
import { EdgeBackup } from './edge.backup.js';
import { UpstreamConfiguration } from './edge.configuration.js';
import { BootstrapFile } from './edge.offline.js';
import { UpstreamReporting } from './edge.reporting.js';
import { EdgeTokens, parsePretrusted } from './edge.tokens.js';
import { Upstream, type UpstreamApi } from './edge.upstream-http.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type EdgeApp = Awaited<ReturnType<typeof buildEdgeApp>>;

/** A timer interval that never fires in practice (setInterval's largest). */
const NEVER_MS = 2 ** 31 - 1;

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

/**
 * Where the replica's configuration comes from, and the tokens it fetches with: the upstream
 * (UPSTREAM_URL with UPSTREAM_TOKENS), or offline the bootstrap file, read once here so that a
 * missing or broken file stops the start with the reason (as Unleash Edge's offline mode does).
 */
async function sourceOf(
  config: Config,
  instanceId: string,
): Promise<{ upstream: UpstreamApi; secrets: string[] }> {
  if (config.EDGE_BOOTSTRAP_FILE) {
    const client = list(config.EDGE_CLIENT_TOKENS);
    if (client.length === 0) {
      throw new Error('EDGE_CLIENT_TOKENS: offline mode needs at least one client token (comma-separated)');
    }
    const file = new BootstrapFile(config.EDGE_BOOTSTRAP_FILE, {
      client,
      frontend: list(config.EDGE_FRONTEND_TOKENS),
    });
    await file.features('', undefined).catch((error: unknown) => {
      throw new Error(`EDGE_BOOTSTRAP_FILE: ${error instanceof Error ? error.message : String(error)}`);
    });
    return { upstream: file, secrets: file.startupSecrets };
  }
  const secrets = list(config.UPSTREAM_TOKENS);
  if (!config.UPSTREAM_URL || secrets.length === 0) {
    throw new Error(
      'UPSTREAM_TOKENS: edge mode needs at least one client token of the upstream (comma-separated)',
    );
  }
  return { upstream: new Upstream(config.UPSTREAM_URL, instanceId), secrets };
}

/**
 * An edge replica (UPSTREAM_URL set): a stateless copy of an upstream's SDK configuration,
 * without a database. The app is returned at once, to listen (`/health` answers, `/ready` and
 * the SDK routes say 503); `configured` resolves once it has validated UPSTREAM_TOKENS with the
 * upstream (retrying every second while it cannot be reached) and fetched their configuration,
 * and rejects when the upstream says none of them is a valid client token.
 */
export async function openEdge(
  config: Config,
  say: (message: string) => void = () => {},
): Promise<{ app: EdgeApp; configured: Promise<void> }> {
  const instanceId = `flagship-edge-${hostname()}-${process.pid}`;
  const { upstream, secrets } = await sourceOf(config, instanceId);
  const tokens = new EdgeTokens(
    upstream,
    Date.now,
    parsePretrusted(config.EDGE_PRETRUSTED_TOKENS ?? ''),
    config.EDGE_TOKEN_REVALIDATION_SECONDS * 1000,
  );
  const reporting = new UpstreamReporting(upstream, () => tokens.startup, {
    appName: 'flagship-edge',
    instanceId,
  });
  const offline = upstream instanceof BootstrapFile;
  const app: EdgeApp = await buildEdgeApp({
    config,
    tokens,
    reporting,
    configuration: new UpstreamConfiguration(upstream, {
      refreshMs: offline
        ? config.EDGE_RELOAD_SECONDS > 0
          ? config.EDGE_RELOAD_SECONDS * 1000
          : NEVER_MS
        : config.EDGE_REFRESH_SECONDS * 1000,
      streaming: config.EDGE_STREAMING && !offline,
      // The app's logger, once the app exists (the configuration starts after it).
      log: { info: (obj, msg) => app.log.info(obj, msg), warn: (obj, msg) => app.log.warn(obj, msg) },
    }),
  });
  const { configuration } = app.edge;
  const folder = config.EDGE_BACKUP_FOLDER;
  const backup = folder ? new EdgeBackup(folder) : undefined;
  // Only a configuration the upstream gave for every startup token (not a backup being served,
  // nor one missing an environment whose fetch failed) replaces the saved one.
  const save = () => {
    if (!backup || !configuration.complete) return;
    try {
      backup.save(tokens.scopes(), configuration.documents());
    } catch (error) {
      app.log.warn({ err: error, folder }, 'could not write the edge backup');
    }
  };
  // After every change, and at the end (tokens SDKs sent since are in it then).
  configuration.subscribe(save);
  let closed = false;
  app.addHook('preClose', async () => {
    closed = true;
    save();
  });
  /** Restarted while the upstream is away: the backup's flags and tokens meanwhile. */
  let restored = false;
  const restoreBackup = () => {
    const found = restored ? undefined : backup?.load();
    restored = true;
    if (!found || tokens.restore(secrets, found.tokens).length === 0) return;
    if (configuration.restore(new Map(Object.entries(found.documents)), found.savedAt)) {
      say(`Serving the configuration saved at ${found.savedAt} in ${folder} until the upstream answers.`);
    }
  };

  const configure = async () => {
    let told = '';
    while (!closed) {
      let valid: unknown[];
      try {
        valid = await tokens.validateStartup(secrets);
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        if (why !== told) say(`The upstream cannot be reached (${why}); trying again every second…`);
        told = why;
        restoreBackup();
        await sleep(1000);
        continue;
      }
      if (valid.length === 0)
        throw new Error('the upstream says none of UPSTREAM_TOKENS is a valid client token');
      break;
    }
    if (closed) return;
    if (tokens.startup.length < secrets.length) {
      say(
        `${secrets.length - tokens.startup.length} of UPSTREAM_TOKENS are not valid client tokens and are ignored.`,
      );
    }
    await configuration.start(tokens.startup);
    reporting.start(config.EDGE_METRICS_SECONDS * 1000);
    while (!configuration.ready && !closed) await sleep(100);
  };
  return { app, configured: configure() };
}

/** `npm start` with UPSTREAM_URL: the replica, listening on PORT, stopped cleanly by SIGTERM/SIGINT. */
export async function startEdge(config: Config, say: (message: string) => void): Promise<void> {
  const started = performance.now();
  const { app, configured } = await openEdge(config, say);
  let stopping = false;
  const stop = async (signal: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'stopping: sending collected metrics upstream');
    await app.close().catch((error) => app.log.error({ err: error }, 'error while stopping'));
    process.exit(code);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  await app.listen({ port: config.PORT, host: config.HOST });
  const source = config.EDGE_BOOTSTRAP_FILE
    ? `offline, from ${config.EDGE_BOOTSTRAP_FILE}`
    : `upstream ${config.UPSTREAM_URL}`;
  say(`Listening on http://localhost:${config.PORT}/ (edge mode, ${source})`);
  try {
    await configured;
  } catch (error) {
    say(`Failed to start: ${error instanceof Error ? error.message : String(error)}`);
    return stop('configuration', 1);
  }
  const environments = [...new Set(app.edge.tokens.startup.map((t) => t.environment))].join(', ');
  say(`Edge mode: serving ${environments} (ready in ${Math.round(performance.now() - started)} ms)`);
}
