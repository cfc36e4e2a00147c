import fastifyCookie from '@fastify/cookie';
import fastifyRateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { changes } from './changes.js';
import type { Deps } from './deps.js';
import { apiTokenRoutes, edgeValidateRoutes, tokenResolver } from './features/access/index.js';
import { actionRoutes, startActionsJob } from './features/actions/index.js';
import { addonRoutes } from './features/addons/index.js';
import { applicationRoutes } from './features/applications/index.js';
import { bannerRoutes } from './features/banners/index.js';
import { changeRequestRoutes, startChangeRequestScheduler } from './features/change-requests/index.js';
import { answerNotModifiedEarly, clientApiRoutes, type SdkPorts } from './features/client-api/index.js';
import { clientDeltaRoutes } from './features/client-delta/index.js';
import { contextRoutes } from './features/context/index.js';
import { dependencyRoutes } from './features/dependencies/index.js';
import { environmentRoutes } from './features/environments/index.js';
import { changeVersion, eventRoutes } from './features/events/index.js';
import { featureTypeRoutes } from './features/feature-types/index.js';
import { findFlagArchivedState } from './features/flag-rows/index.js';
import { flagRoutes, startStalenessJob } from './features/flags/index.js';
import { answerFrontendEarly, frontendApiRoutes } from './features/frontend-api/index.js';
import { corsSettingRoutes, FrontendOrigins } from './features/frontend-origins/index.js';
import { groupRoutes } from './features/groups/index.js';
import { instanceRoutes } from './features/instance/index.js';
import { inviteRoutes } from './features/invites/index.js';
import { documentMaintenance, maintenanceGuard, maintenanceRoutes } from './features/maintenance/index.js';
import { ofrepRoutes } from './features/ofrep/index.js';
import { personalDashboardRoutes } from './features/personal-dashboard/index.js';
import { playgroundRoutes } from './features/playground/index.js';
import { projectRoutes, startHealthHistoryJob } from './features/projects/index.js';
import { releasePlanRoutes, startReleasePlanJob } from './features/release-plans/index.js';
import { roleRoutes } from './features/roles/index.js';
import { databaseReporting, startRetentionJob } from './features/sdk-usage/index.js';
import { searchRoutes } from './features/search/index.js';
import { segmentRoutes } from './features/segments/index.js';
import { signalRoutes } from './features/signals/index.js';
import { ConfigurationCache } from './features/snapshot/index.js';
import { stateRoutes } from './features/state/index.js';
import { strategyRoutes } from './features/strategies/index.js';
import { strategyDefinitionRoutes } from './features/strategy-definitions/index.js';
import { tagRoutes } from './features/tags/index.js';
import { transferRoutes } from './features/transfer/index.js';
import { uiStateRoutes } from './features/ui-state/index.js';
import {
  PAT_PREFIX,
  SESSION_COOKIE,
  serviceAccountRoutes,
  sessionRoutes,
  sessionTtlMs,
  userResolver,
  userRoutes,
} from './features/users/index.js';
import { variantRoutes } from './features/variants/index.js';
import { registerAuth } from './platform/http/auth.js';
import { rateLimitError } from './platform/http/errors.js';
import { registerHealth } from './platform/http/health.js';
import { registerMetrics } from './platform/http/metrics.js';
import { registerDocs, registerOpenApi } from './platform/http/openapi.js';
import { registerSameOrigin } from './platform/http/same-origin.js';
import { createServer } from './platform/http/server.js';
import { registerUi } from './platform/http/ui.js';
import { ReadCache } from './platform/read-cache.js';

/** Builds the HTTP app on the given dependencies; one registration line per slice. */
export async function buildApp(deps: Deps): Promise<FastifyInstance> {
  const app = createServer(deps.config);
  await registerOpenApi(app);
  const reads = new ReadCache(
    deps.database.keepUntilWrite(() => changeVersion(deps.database.db)),
    {
      verify: deps.config.READ_CACHE_VERIFY,
    },
  );
  await app.register(fastifyCookie);
  await app.register(fastifyRateLimit, { global: false, errorResponseBuilder: rateLimitError });
  const tokens = tokenResolver(deps.database.db);
  const users = userResolver(deps.database.db, reads, deps.now, sessionTtlMs(deps));
  const known = (secret: string) => (secret.startsWith(PAT_PREFIX) ? undefined : tokens.known(secret));
  registerAuth(app, {
    header: (secret, scope) => (secret.startsWith(PAT_PREFIX) ? users.pat(secret, scope) : tokens(secret)),
    known,
    session: users.session,
    sessionCookie: SESSION_COOKIE,
    loginPath: `${deps.config.BASE_URI_PATH}/auth/simple/login`,
    projectOfFlag: async (name) => (await findFlagArchivedState(deps.database.db, name))?.project,
  });
  // After the authentication hook: signed-in writes from another site are refused (403).
  registerSameOrigin(app, { publicUrl: deps.config.PUBLIC_URL });
  const recordAnswer = registerMetrics(app);
  await registerDocs(app);
  registerHealth(app, () => deps.database.ping());

  const configuration = new ConfigurationCache(deps.database, deps.config.CONFIGURATION_POLL_MS);
  app.addHook('onReady', () => configuration.start());
  app.addHook('onClose', () => configuration.stop());
  const stalenessEvery = deps.config.STALENESS_CHECK_SECONDS * 1000;
  let stopStaleness: (() => Promise<void>) | undefined;
  if (stalenessEvery > 0) {
    app.addHook('onReady', async () => {
      stopStaleness = startStalenessJob(deps, stalenessEvery, app.log);
    });
    app.addHook('onClose', async () => stopStaleness?.());
    // Health over time (issue 16): today's figures of every project, at the staleness job's pace.
    let stopHealthHistory: (() => Promise<void>) | undefined;
    app.addHook('onReady', async () => {
      stopHealthHistory = startHealthHistoryJob(deps, stalenessEvery, app.log);
    });
    app.addHook('onClose', async () => stopHealthHistory?.());
  }
  const retentionEvery = deps.config.RETENTION_CHECK_SECONDS * 1000;
  let stopRetention: (() => Promise<void>) | undefined;
  if (retentionEvery > 0) {
    app.addHook('onReady', async () => {
      stopRetention = startRetentionJob(deps, retentionEvery, app.log);
    });
    app.addHook('onClose', async () => stopRetention?.());
  }
  const scheduledEvery = deps.config.SCHEDULED_CHANGES_CHECK_SECONDS * 1000;
  let stopScheduler: (() => Promise<void>) | undefined;
  if (scheduledEvery > 0) {
    app.addHook('onReady', async () => {
      stopScheduler = startChangeRequestScheduler({ deps, changes }, scheduledEvery, app.log);
    });
    app.addHook('onClose', async () => stopScheduler?.());
  }

  const actionsEvery = deps.config.SIGNAL_ACTIONS_SECONDS * 1000;
  let stopActions: (() => Promise<void>) | undefined;
  if (actionsEvery > 0) {
    app.addHook('onReady', async () => {
      stopActions = startActionsJob({ deps, changes }, actionsEvery, app.log);
    });
    app.addHook('onClose', async () => stopActions?.());
  }

  const progressionEvery = deps.config.RELEASE_PLAN_CHECK_SECONDS * 1000;
  let stopProgressions: (() => Promise<void>) | undefined;
  if (progressionEvery > 0) {
    app.addHook('onReady', async () => {
      stopProgressions = startReleasePlanJob({ deps, changes }, progressionEvery, app.log);
    });
    app.addHook('onClose', async () => stopProgressions?.());
  }

  // Maintenance mode refuses configuration writes, after authentication and permission checks.
  app.addHook('preHandler', maintenanceGuard(deps));
  documentMaintenance(app);

  // Slices: one line each.
  await app.register(flagRoutes(deps, reads, changes));
  await app.register(dependencyRoutes(deps, changes, reads));
  await app.register(apiTokenRoutes(deps));
  await app.register(edgeValidateRoutes(deps));
  await app.register(variantRoutes(deps, changes));
  await app.register(tagRoutes(deps, reads));
  await app.register(contextRoutes(deps));
  await app.register(strategyDefinitionRoutes(deps));
  await app.register(eventRoutes(deps, reads));
  await app.register(userRoutes(deps));
  await app.register(roleRoutes(deps));
  await app.register(serviceAccountRoutes(deps));
  await app.register(inviteRoutes(deps));
  await app.register(groupRoutes(deps));
  await app.register(sessionRoutes(deps));
  await app.register(projectRoutes(deps, reads));
  await app.register(personalDashboardRoutes(deps));
  await app.register(environmentRoutes(deps, reads));
  await app.register(strategyRoutes(deps, changes));
  await app.register(segmentRoutes(deps, changes));
  await app.register(changeRequestRoutes(deps, changes));
  await app.register(bannerRoutes(deps));
  await app.register(signalRoutes(deps));
  await app.register(actionRoutes(deps));
  await app.register(releasePlanRoutes(deps, changes));
  await app.register(searchRoutes(deps, reads));
  await app.register(featureTypeRoutes(deps));
  await app.register(maintenanceRoutes(deps, reads));
  await app.register(instanceRoutes(deps, reads));
  await app.register(uiStateRoutes(deps));
  await app.register(transferRoutes(deps));
  await app.register(stateRoutes(deps));
  await app.register(playgroundRoutes(deps, configuration));
  // The SDK-facing APIs stand on ports (an edge replica gives its own, src/edge/).
  const origins = new FrontendOrigins(deps, configuration);
  const reporting = databaseReporting(deps, app.log);
  app.addHook('onClose', () => reporting.close()); // metrics still pending are written
  const sdk: SdkPorts = {
    config: deps.config,
    now: deps.now,
    configuration,
    reporting,
    origins: () => origins.current(),
    tokenValid: async (secret) => (await tokens(secret)) !== null,
  };
  await app.register(corsSettingRoutes(deps, origins));
  await app.register(clientApiRoutes(sdk));
  // SDK polls that find nothing new, answered before routing (ADR 0018).
  answerNotModifiedEarly(app, deps.config, { configuration, known, record: recordAnswer });
  await app.register(clientDeltaRoutes(sdk));
  await app.register(frontendApiRoutes(sdk));
  // Frontend SDKs polling with the context of their last poll, answered before routing too.
  answerFrontendEarly(
    app,
    deps.config,
    { configuration, known, origins: () => origins.current(), now: deps.now, record: recordAnswer },
    { all: false },
  );
  await app.register(ofrepRoutes(sdk));
  await app.register(applicationRoutes(deps));
  await app.register(addonRoutes(deps));
  // The web admin UI (ADR 0012): `/`, its assets, and client routes for browsers.
  await registerUi(app, { basePath: deps.config.BASE_URI_PATH });
  return app;
}
