import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type RawBuilder,
  sql,
} from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { IsFilter, SearchRequest, SetFilter } from './search.query.js';

/** One search item as the statement builds it (timestamps as PostgreSQL's JSON text). */
export interface SearchItemRow {
  name: string;
  type: string;
  description: string | null;
  project: string;
  stale: boolean;
  potentiallyStale: boolean;
  impressionData: boolean;
  createdAt: string | null;
  archivedAt: string | null;
  favorite: boolean;
  dependencyType: 'parent' | 'child' | null;
  createdBy: { id: number | null; name: string | null; email: string | null; username: string | null };
  segments: string[];
  tags: { type: string; value: string }[];
  lifecycle: { stage: string; status: string | null; enteredStageAt: string } | null;
  environments: {
    name: string;
    enabled: boolean;
    type: string;
    sortOrder: number;
    variantCount: number;
    lastSeenAt: string | null;
    hasStrategies: boolean;
    hasEnabledStrategies: boolean;
    yes: number;
    no: number;
  }[];
}

type Sql = RawBuilder<unknown>;

/** The caller, for favorites: only people have them. */
export interface SearchContext {
  userId: number | null;
  /** Metrics newer than this count as "the last hour". */
  metricsSince: Date;
}

const STAGE_ORDER = sql`array['initial','pre-live','live','completed','archived']::text[]`;

/**
 * The flag's current lifecycle stage (its latest lifecycle row, `initial` when it has none), kept
 * on the flag by a trigger (migrations/0011_search_columns.sql), so the filter uses an index.
 */
const currentStage = sql`f.lifecycle_stage`;

/** Last seen by an SDK in any environment: metrics write it on the flag too (markFlagsSeen). */
const lastSeen = sql`f.last_seen_at`;

/**
 * `column` is one of the values (or none of them). One value is an equality, not `= ANY(array)`:
 * the same answer, but only an equality on an index's first column lets the planner read the rest
 * of the index in order (`project=IS:p` sorted by creation: features_active_project_created stops
 * after the page). With `= ANY` the first page of a 10,000-flag project read and sorted all 10,000
 * (worse when the statistics predate a bulk load, as on PGlite, which has no autovacuum; see
 * `npx tsx bench/ui-first-rows.ts --explain`).
 */
const isIn = <T>(column: Sql, filter: IsFilter<T>, cast: string) => {
  const [only] = filter.values;
  const any =
    filter.values.length === 1
      ? sql`${column} = ${only}::${sql.raw(cast.replace(/\[\]$/, ''))}`
      : sql`${column} = ANY(${filter.values}::${sql.raw(cast)})`;
  return filter.include ? any : sql`NOT coalesce(${any}, false)`;
};

/** A set filter over "the flags having one of these" (`having`) with the per-flag match count. */
function setCondition<T>(
  filter: SetFilter<T>,
  having: (values: T[]) => Sql,
  havingAll: (values: T[]) => Sql,
) {
  switch (filter.match) {
    case 'any':
      return sql`f.name IN (${having(filter.values)})`;
    case 'none':
      return sql`f.name NOT IN (${having(filter.values)})`;
    case 'all':
      return sql`f.name IN (${havingAll(filter.values)})`;
    case 'notAll':
      return sql`f.name NOT IN (${havingAll(filter.values)})`;
  }
}

const tagRows = (tags: { type: string; value: string }[]) =>
  sql`SELECT t.feature_name FROM feature_tag t
    WHERE (t.tag_type, t.tag_value) IN (SELECT * FROM unnest(${tags.map((t) => t.type)}::text[], ${tags.map((t) => t.value)}::text[]))`;

const segmentRows = (names: string[]) =>
  sql`SELECT s.feature_name FROM feature_strategies s
    JOIN feature_strategy_segment fss ON fss.feature_strategy_id = s.id
    JOIN segments sg ON sg.id = fss.segment_id
    WHERE sg.name = ANY(${names}::text[])`;

const favorites = (userId: number) =>
  sql`SELECT ff.feature_name FROM favorite_features ff WHERE ff.user_id = ${userId}`;

/**
 * Every condition of the request but the text (`textSources`), AND-ed over `f` (features); the same
 * text serves the page and the total.
 */
function conditions(r: SearchRequest, ctx: SearchContext): Sql {
  const where: Sql[] = [];
  // Active flags unless the archive is asked for (archived=IS:true or lifecycle includes it).
  if (r.archived) {
    where.push(sql`f.archived_at IS NOT NULL`);
    if (r.lifecycle) where.push(isIn(currentStage, r.lifecycle, 'text[]'));
  } else if (r.lifecycle?.include && r.lifecycle.values.includes('archived')) {
    const others = r.lifecycle.values.filter((s) => s !== 'archived');
    where.push(
      others.length > 0
        ? sql`(f.archived_at IS NOT NULL OR (f.archived_at IS NULL AND ${currentStage} = ANY(${others}::text[])))`
        : sql`f.archived_at IS NOT NULL`,
    );
  } else {
    where.push(sql`f.archived_at IS NULL`);
    if (r.lifecycle) where.push(isIn(currentStage, r.lifecycle, 'text[]'));
  }
  if (r.project) where.push(isIn(sql`f.project`, r.project, 'text[]'));
  if (r.type) where.push(isIn(sql`f.type`, r.type, 'text[]'));
  if (r.createdBy) where.push(isIn(sql`f.created_by_user_id`, r.createdBy, 'int[]'));
  if (r.state) {
    const each = r.state.values.map((s) =>
      s === 'active'
        ? sql`NOT f.stale`
        : s === 'stale'
          ? sql`f.stale`
          : sql`(NOT f.stale AND f.potentially_stale)`,
    );
    const any = sql`(${sql.join(each, sql` OR `)})`;
    where.push(r.state.include ? any : sql`NOT ${any}`);
  }
  if (r.tag) {
    where.push(
      setCondition(
        r.tag,
        tagRows,
        (tags) => sql`${tagRows(tags)} GROUP BY t.feature_name HAVING count(*) = ${tags.length}`,
      ),
    );
  }
  if (r.segment) {
    where.push(
      setCondition(
        r.segment,
        segmentRows,
        (names) =>
          sql`${segmentRows(names)} GROUP BY s.feature_name HAVING count(DISTINCT sg.name) = ${names.length}`,
      ),
    );
  }
  if (r.status) {
    where.push(sql`f.name IN (SELECT fe.feature_name FROM feature_environments fe
      JOIN unnest(${r.status.map((s) => s.environment)}::text[], ${r.status.map((s) => s.enabled)}::boolean[]) AS st(env, enabled)
        ON fe.environment = st.env AND fe.enabled = st.enabled)`);
  }
  if (r.createdAt) {
    where.push(
      r.createdAt.before ? sql`f.created_at < ${r.createdAt.date}` : sql`f.created_at >= ${r.createdAt.date}`,
    );
  }
  if (r.lastSeenAt) {
    where.push(
      r.lastSeenAt.before
        ? sql`${lastSeen} < ${r.lastSeenAt.date}`
        : sql`${lastSeen} >= ${r.lastSeenAt.date}`,
    );
  }
  if (r.favorite !== undefined) {
    if (ctx.userId === null) {
      if (r.favorite) where.push(sql`false`);
    } else {
      where.push(
        r.favorite
          ? sql`f.name IN (${favorites(ctx.userId)})`
          : sql`f.name NOT IN (${favorites(ctx.userId)})`,
      );
    }
  }
  return sql.join(where, sql` AND `);
}

interface SortKey {
  expr: Sql;
  /** Always ascending, whatever `sortOrder` says (groups such as "favorites first"). */
  fixed?: boolean;
  /** Nulls after every value in both directions. */
  nullsLast?: boolean;
}

/** The ORDER BY keys: the sort, then created_at and name so that no two flags tie (stable pages). */
function sortKeys(r: SearchRequest, ctx: SearchContext): SortKey[] {
  const keys: SortKey[] = [];
  if (r.favoritesFirst && ctx.userId !== null) {
    keys.push({ expr: sql`(CASE WHEN f.name IN (${favorites(ctx.userId)}) THEN 0 ELSE 1 END)`, fixed: true });
  }
  const tail = [{ expr: sql`f.created_at` }, { expr: sql`f.name` }];
  switch (r.sort.by) {
    case 'name':
      return [...keys, { expr: sql`f.name` }];
    case 'createdAt':
      return [...keys, ...tail];
    case 'type':
      return [...keys, { expr: sql`f.type` }, ...tail];
    case 'project':
      return [...keys, { expr: sql`f.project` }, ...tail];
    case 'stale':
      return [...keys, { expr: sql`f.stale` }, ...tail];
    case 'lastSeenAt':
      // Never-seen flags last both ways (served by the two features_active_seen indexes).
      return [...keys, { expr: lastSeen, nullsLast: true }, ...tail];
    case 'environment': {
      // By `enabled` as Unleash orders it, false before true: asc disabled then enabled, desc
      // enabled then disabled; flags without a row in that environment last both ways.
      const [on, off] = r.descending ? [0, 1] : [1, 0];
      // `fs`: the flag's row in that environment, joined to the page query (sortJoin), so the
      // sort is one join instead of a lookup per flag.
      const group = sql`(CASE WHEN fs.enabled THEN ${sql.lit(on)} WHEN fs.enabled IS NOT NULL THEN ${sql.lit(off)} ELSE 2 END)`;
      return [...keys, { expr: group, fixed: true }, ...tail];
    }
  }
}

/** The join the sort keys need (`sortBy=environment:<name>`), for the page query only. */
function sortJoin(r: SearchRequest): Sql {
  if (r.sort.by !== 'environment') return sql``;
  return sql`LEFT JOIN feature_environments fs ON fs.feature_name = f.name AND fs.environment = ${r.sort.environment}`;
}

const direction = (key: SortKey, descending: boolean) =>
  sql.raw(`${!key.fixed && descending ? 'DESC' : 'ASC'}${key.nullsLast ? ' NULLS LAST' : ''}`);

/** The page and the number of all matches, in one statement (searchStatement). */
export async function searchFlags(
  db: Kysely<DB>,
  r: SearchRequest,
  ctx: SearchContext,
): Promise<{ total: number; features: SearchItemRow[] }> {
  const result = await searchStatement(r, ctx).execute(db);
  const row = result.rows[0];
  return { total: Number(row?.total ?? 0), features: row?.features ?? [] };
}

/** Compiles without a database: SQL text and parameters, for EXPLAIN in the benchmark. */
const compiler = new Kysely<DB>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});
export function compileSearch(
  r: SearchRequest,
  ctx: SearchContext,
): { sql: string; parameters: readonly unknown[] } {
  return searchStatement(r, ctx).compile(compiler);
}

/**
 * The text filter (`query`): each term a case-insensitive substring of the name, the description or
 * a tag as type:value. Two sources of flags, each served by trigram indexes on the exact expressions
 * below: the flags whose name or description matches (a BitmapOr per term, migrations/0010_search.sql
 * and 0030: the name's index is on lower(name), which equality lookups by name cannot pick),
 * and the flags carrying a matching tag. Tags are matched in `tags`, one row per distinct tag
 * (every flag's tag has one, by foreign key; migrations/0028_search_indexes.sql), then their flags
 * are read from the (type, value, flag) index: a term common to many flags' tags ("simple:") is
 * matched once per tag instead of once per flag. `row` is what each source selects from `f`.
 */
function textSources(r: SearchRequest, where: Sql, row: Sql, join: Sql): Sql {
  // One branch per term: with every term in one OR, the planner prices the bitmap scans above a
  // sequential scan (PGlite chose it: 1.5 s for two terms, as ILIKE on every flag).
  const own = r.patterns.map(
    (p) => sql`SELECT ${row} FROM features f ${join}
      WHERE (lower(f.name) ILIKE ${p} OR f.description ILIKE ${p}) AND ${where}`,
  );
  const tagged = r.patterns.map((p) => sql`(tg.type || ':' || tg.value) ILIKE ${p}`);
  return sql`${sql.join(own, sql` UNION `)}
    UNION
    SELECT ${row} FROM tags tg
      JOIN feature_tag t ON t.tag_type = tg.type AND t.tag_value = tg.value
      JOIN features f ON f.name = t.feature_name ${join}
      WHERE (${sql.join(tagged, sql` OR `)}) AND ${where}`;
}

/**
 * `sortBy=environment:<name>` without favorites first: the page as up to three groups (asc: disabled,
 * enabled, without a row in that environment; desc: enabled, disabled, without), each read in
 * (created_at, name) order from the flags index with a primary-key probe per flag, stopping after
 * offset + limit rows, and a group is read only when the groups before it are short of that.
 * One sort of ≤ 3 × (offset + limit) rows, instead of joining and sorting every flag.
 */
function environmentGroups(r: SearchRequest, where: Sql, environment: string): Sql {
  const n = r.offset + r.limit;
  const dir = sql.raw(r.descending ? 'DESC' : 'ASC');
  const row = (enabled: boolean | null) =>
    enabled === null
      ? sql`NOT EXISTS (SELECT 1 FROM feature_environments fe
          WHERE fe.feature_name = f.name AND fe.environment = ${environment})`
      : sql`EXISTS (SELECT 1 FROM feature_environments fe
          WHERE fe.feature_name = f.name AND fe.environment = ${environment} AND fe.enabled = ${enabled})`;
  // `needed` gates the group outside its LIMIT: inside, PostgreSQL may start parallel workers
  // before it finds the group unneeded (18 ms).
  const group = (i: number, has: Sql, needed: Sql) => sql`${sql.ref(`g${i}`)} AS MATERIALIZED (
      SELECT * FROM (SELECT f.name, ${sql.lit(i)} AS k0, f.created_at AS k1, f.name AS k2 FROM features f
        WHERE ${where} AND ${has}
        ORDER BY f.created_at ${dir}, f.name ${dir} LIMIT ${n}) g WHERE ${needed})`;
  // The first group: disabled flags ascending (false sorts before true), enabled ones descending.
  const first = r.descending;
  return sql.join(
    [
      group(0, row(first), sql`true`),
      group(1, row(!first), sql`(SELECT count(*) FROM g0) < ${n}`),
      group(2, row(null), sql`(SELECT count(*) FROM g0) + (SELECT count(*) FROM g1) < ${n}`),
    ],
    sql`, `,
  );
}

/**
 * The statement: one row, `total` and the page as a JSON array. The total is counted first (`counted`,
 * kept a subquery of its own by OFFSET 0, so the page reads it instead of counting again) and the
 * page read only when it reaches past `offset` (an empty result costs one count, not a walk through
 * every flag in sort order). Three shapes of the page:
 * - with a text filter, the matches are found once (`m`, from the trigram indexes) and both counted
 *   and sorted: a text filter cannot follow a sort index, and finding the matches is the cost;
 * - `sortBy=environment` (without favorites first), the groups of environmentGroups;
 * - otherwise an index scan in sort order that stops after the page, next to an index-only count.
 */
function searchStatement(r: SearchRequest, ctx: SearchContext) {
  const where = conditions(r, ctx);
  const keys = sortKeys(r, ctx);
  const keyColumns = sql.join(keys.map((k, i) => sql`${k.expr} AS ${sql.ref(`k${i}`)}`));
  const order = sql.join(keys.map((k) => sql`${k.expr} ${direction(k, r.descending)}`));
  const keyOrder = sql.join(keys.map((k, i) => sql`${sql.ref(`k${i}`)} ${direction(k, r.descending)}`));
  const pageOrder = sql.join(keys.map((k, i) => sql`${sql.ref(`p.k${i}`)} ${direction(k, r.descending)}`));
  const window = sql`LIMIT ${r.limit} OFFSET ${r.offset}`;
  const reached = sql`counted.total > ${r.offset}`;
  let ctes: Sql | undefined;
  let count: Sql;
  let page: Sql;
  if (r.patterns.length > 0) {
    ctes = sql`m AS MATERIALIZED (${textSources(r, where, sql`f.name, ${keyColumns}`, sortJoin(r))})`;
    count = sql`SELECT count(*) FROM m`;
    page = sql`SELECT * FROM m WHERE ${reached} ORDER BY ${keyOrder} ${window}`;
  } else {
    count = sql`SELECT count(*) FROM features f WHERE ${where}`;
    if (r.sort.by === 'environment' && !(r.favoritesFirst && ctx.userId !== null)) {
      ctes = environmentGroups(r, where, r.sort.environment);
      page = sql`SELECT * FROM (SELECT * FROM g0 UNION ALL SELECT * FROM g1 UNION ALL SELECT * FROM g2) g
        WHERE ${reached} ORDER BY ${keyOrder} ${window}`;
    } else {
      page = sql`SELECT f.name, ${keyColumns} FROM features f ${sortJoin(r)} WHERE ${reached} AND ${where}
        ORDER BY ${order} ${window}`;
    }
  }
  const favorite =
    ctx.userId === null
      ? sql`false`
      : sql`EXISTS (SELECT 1 FROM favorite_features ff WHERE ff.feature_name = f.name AND ff.user_id = ${ctx.userId})`;
  return sql<{ total: number; features: SearchItemRow[] }>`
    ${ctes ? sql`WITH ${ctes}` : sql``}
    SELECT
      counted.total,
      coalesce((SELECT json_agg(json_build_object(
        'name', f.name,
        'type', f.type,
        'description', f.description,
        'project', f.project,
        'stale', f.stale,
        'potentiallyStale', NOT f.stale AND f.potentially_stale,
        'impressionData', f.impression_data,
        'createdAt', f.created_at,
        'archivedAt', f.archived_at,
        'favorite', ${favorite},
        'dependencyType', CASE
          WHEN EXISTS (SELECT 1 FROM feature_dependencies d WHERE d.child = f.name) THEN 'child'
          WHEN EXISTS (SELECT 1 FROM feature_dependencies d WHERE d.parent = f.name) THEN 'parent' END,
        'createdBy', json_build_object('id', f.created_by_user_id,
          'name', coalesce(u.name, u.username, u.email, f.created_by_name),
          'email', u.email, 'username', u.username),
        'segments', coalesce((SELECT json_agg(DISTINCT sg.name ORDER BY sg.name)
          FROM feature_strategies s
          JOIN feature_strategy_segment fss ON fss.feature_strategy_id = s.id
          JOIN segments sg ON sg.id = fss.segment_id
          WHERE s.feature_name = f.name), '[]'::json),
        'tags', coalesce((SELECT json_agg(json_build_object('type', t.tag_type, 'value', t.tag_value)
          ORDER BY t.tag_type, t.tag_value) FROM feature_tag t WHERE t.feature_name = f.name), '[]'::json),
        'lifecycle', (SELECT json_build_object('stage', l.stage, 'status', l.status, 'enteredStageAt', l.created_at)
          FROM feature_lifecycles l WHERE l.feature_name = f.name
          ORDER BY l.created_at DESC, array_position(${STAGE_ORDER}, l.stage) DESC LIMIT 1),
        'environments', coalesce((SELECT json_agg(json_build_object(
            'name', fe.environment,
            'enabled', fe.enabled,
            'type', e.type,
            'sortOrder', e.sort_order,
            'variantCount', jsonb_array_length(fe.variants),
            'lastSeenAt', fe.last_seen_at,
            'hasStrategies', EXISTS (SELECT 1 FROM feature_strategies s
              WHERE s.feature_name = f.name AND s.environment = fe.environment),
            'hasEnabledStrategies', EXISTS (SELECT 1 FROM feature_strategies s
              WHERE s.feature_name = f.name AND s.environment = fe.environment AND NOT s.disabled),
            'yes', coalesce(m.yes, 0),
            'no', coalesce(m.no, 0)
          ) ORDER BY e.sort_order, e.name)
          FROM feature_environments fe
          JOIN environments e ON e.name = fe.environment
          JOIN project_environments pe ON pe.environment_name = fe.environment AND pe.project_id = f.project
          LEFT JOIN LATERAL (SELECT sum(c.yes) AS yes, sum(c.no) AS no FROM client_metrics_env c
            WHERE c.feature_name = f.name AND c.environment = fe.environment
              AND c.timestamp >= ${ctx.metricsSince}) m ON true
          WHERE fe.feature_name = f.name), '[]'::json)
      ) ORDER BY ${pageOrder})
      FROM (${page}) p
      JOIN features f ON f.name = p.name
      LEFT JOIN users u ON u.id = f.created_by_user_id), '[]'::json) AS features
    FROM (SELECT (${count})::int AS total OFFSET 0) counted
  `;
}
