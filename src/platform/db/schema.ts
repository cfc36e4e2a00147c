import type { ColumnType, Generated, Selectable } from 'kysely';

/** jsonb columns are written as JSON text (both drivers would otherwise mangle arrays) and read parsed. */
export type Json<T> = ColumnType<T, string, string>;
/** A jsonb column with a database default. */
export type JsonDefault<T> = ColumnType<T, string | undefined, string>;
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export interface EnvironmentsTable {
  name: string;
  type: string;
  sort_order: Generated<number>;
  enabled: Generated<boolean>;
  protected: Generated<boolean>;
  created_at: Timestamp;
}

export interface ProjectsTable {
  id: string;
  name: string;
  description: string | null;
  mode: Generated<'open' | 'protected' | 'private'>;
  default_stickiness: Generated<string>;
  feature_limit: number | null;
  feature_naming_pattern: string | null;
  feature_naming_example: string | null;
  feature_naming_description: string | null;
  created_at: Timestamp;
  updated_at: NullableTimestamp;
  archived_at: NullableTimestamp;
}

export interface ProjectEnvironmentsTable {
  project_id: string;
  environment_name: string;
  default_strategy: Json<unknown> | null;
}

export interface FeatureTypesTable {
  id: string;
  name: string;
  description: string | null;
  lifetime_days: number | null;
}

export interface FeaturesTable {
  name: string;
  project: string;
  type: Generated<string>;
  description: string | null;
  stale: Generated<boolean>;
  potentially_stale: Generated<boolean>;
  impression_data: Generated<boolean>;
  created_at: Timestamp;
  created_by_user_id: number | null;
  created_by_name: string | null;
  archived_at: NullableTimestamp;
  last_seen_at: NullableTimestamp;
  /** The newest lifecycle stage, kept by a trigger on feature_lifecycles (migrations 0011, 0020). */
  lifecycle_stage: Generated<string>;
}

export interface FeatureEnvironmentsTable {
  feature_name: string;
  environment: string;
  enabled: Generated<boolean>;
  variants: JsonDefault<unknown[]>;
  last_seen_at: NullableTimestamp;
}

export interface FeatureLifecyclesTable {
  feature_name: string;
  stage: 'initial' | 'pre-live' | 'live' | 'completed' | 'archived';
  status: string | null;
  status_value: string | null;
  created_at: Timestamp;
}

export interface FeatureDependenciesTable {
  parent: string;
  child: string;
  enabled: Generated<boolean>;
  variants: Json<string[]> | null;
}

export interface FavoriteFeaturesTable {
  feature_name: string;
  user_id: number;
  created_at: Timestamp;
}

export interface FeatureLinksTable {
  id: string;
  feature_name: string;
  url: string;
  title: string | null;
  created_at: Timestamp;
}

export interface FeatureStrategiesTable {
  id: string;
  feature_name: string;
  environment: string;
  strategy_name: string;
  title: string | null;
  disabled: Generated<boolean>;
  sort_order: Generated<number>;
  parameters: JsonDefault<Record<string, string>>;
  constraints: JsonDefault<unknown[]>;
  variants: JsonDefault<unknown[]>;
  created_by_user_id: number | null;
  created_at: Timestamp;
}

export interface FeatureStrategySegmentTable {
  feature_strategy_id: string;
  segment_id: number;
  created_at: Timestamp;
}

export interface SegmentsTable {
  id: Generated<number>;
  name: string;
  description: string | null;
  segment_project_id: string | null;
  constraints: JsonDefault<unknown[]>;
  created_by: string | null;
  created_at: Timestamp;
}

export interface FeatureTagTable {
  feature_name: string;
  tag_type: string;
  tag_value: string;
  created_by_user_id: number | null;
  created_at: Timestamp;
}

export interface TagsTable {
  type: string;
  value: string;
  created_at: Timestamp;
}

export interface EventsTable {
  id: Generated<number>;
  type: string;
  created_at: Timestamp;
  created_by: string;
  created_by_user_id: number | null;
  data: Json<unknown> | null;
  pre_data: Json<unknown> | null;
  tags: JsonDefault<{ type: string; value: string }[]>;
  feature_name: string | null;
  project: string | null;
  environment: string | null;
  group_type: string | null;
  group_id: string | null;
  /** The recording transaction (xid8 as text; migration 0035); null before that migration. */
  tx: Generated<string | null>;
}

export interface EventCountsTable {
  shard: number;
  count: number;
}

export interface ApiTokensTable {
  secret_hash: string;
  token_name: string;
  type: 'admin' | 'client' | 'frontend';
  environment: string | null;
  projects: ColumnType<string[], string[] | undefined, string[]>;
  display_prefix: string;
  alias: string | null;
  expires_at: NullableTimestamp;
  seen_at: NullableTimestamp;
  created_by: string | null;
  created_at: Timestamp;
}

export interface UsersTable {
  id: Generated<number>;
  name: string | null;
  username: string | null;
  email: string | null;
  image_url: string | null;
  password_hash: string | null;
  login_attempts: Generated<number>;
  email_sent: Generated<boolean>;
  is_service: Generated<boolean>;
  root_role_id: number | null;
  scim_id: string | null;
  seen_at: NullableTimestamp;
  created_at: Timestamp;
  deleted_at: NullableTimestamp;
}

export interface RolesTable {
  id: Generated<number>;
  name: string;
  type: 'root' | 'root-custom' | 'project' | 'custom';
  description: string | null;
  created_at: Timestamp;
}

/** See migrations/0006_identity.sql for what '' means in project and environment. */
export interface RolePermissionsTable {
  role_id: number;
  permission: string;
  environment: Generated<string>;
  project: Generated<string>;
}

/** Project roles of users. */
export interface RoleUserTable {
  role_id: number;
  user_id: number;
  project: string;
  created_at: Timestamp;
}

export interface UserSessionsTable {
  sid_hash: string;
  user_id: number;
  expires_at: Date;
  created_at: Timestamp;
}

export interface PersonalAccessTokensTable {
  id: Generated<number>;
  secret_hash: string;
  user_id: number;
  description: string | null;
  expires_at: NullableTimestamp;
  seen_at: NullableTimestamp;
  created_at: Timestamp;
}

export interface GroupsTable {
  id: Generated<number>;
  name: string;
  description: string | null;
  mappings_sso: JsonDefault<string[]>;
  root_role_id: number | null;
  scim_id: string | null;
  created_by: string | null;
  created_at: Timestamp;
}

export interface GroupUserTable {
  group_id: number;
  user_id: number;
  created_by: string | null;
  created_at: Timestamp;
}

/** Project roles of groups. */
export interface GroupRoleTable {
  group_id: number;
  role_id: number;
  project: string;
  created_by: string | null;
  created_at: Timestamp;
}

export interface ResetTokensTable {
  token_hash: string;
  user_id: number;
  expires_at: Date;
  used_at: NullableTimestamp;
  created_by: string | null;
  created_at: Timestamp;
}

export interface TagTypesTable {
  name: string;
  description: string | null;
  icon: string | null;
  color: string | null;
  created_at: Timestamp;
}

export interface StrategiesTable {
  name: string;
  title: string | null;
  description: string | null;
  parameters: JsonDefault<{ name: string; type: string; description: string; required: boolean }[]>;
  built_in: Generated<boolean>;
  deprecated: Generated<boolean>;
  sort_order: Generated<number>;
  created_at: Timestamp;
}

export interface ContextFieldsTable {
  name: string;
  description: string | null;
  sort_order: Generated<number>;
  legal_values: JsonDefault<{ value: string; description?: string }[]>;
  stickiness: Generated<boolean>;
  project: string | null;
  built_in: Generated<boolean>;
  created_at: Timestamp;
}

/**
 * Invite links, found by the SHA-256 hash of their secret (migrations/0007_invite_links.sql); the
 * secret itself is kept sealed, to be shown again (0034).
 */
export interface PublicSignupTokensTable {
  secret_hash: string;
  display_prefix: string;
  /** The secret, sealed (platform/secret-box.ts); null for tokens made before migration 0034. */
  secret_sealed: ColumnType<string | null, string | null | undefined, string | null>;
  name: string;
  expires_at: Date;
  enabled: Generated<boolean>;
  role_id: number;
  created_by: string | null;
  created_at: Timestamp;
}

/** Who signed up with which invite link. */
export interface PublicSignupTokensUserTable {
  secret_hash: string;
  user_id: number;
  created_at: Timestamp;
}

export interface UserFeedbackTable {
  user_id: number;
  feedback_id: string;
  given: NullableTimestamp;
  never_show: Generated<boolean>;
}

export interface UserSplashTable {
  user_id: number;
  splash_id: string;
  seen: Generated<boolean>;
}

export interface ChangeRequestSettingsTable {
  project: string;
  environment: string;
  required_approvals: Generated<number>;
}

export interface ChangeRequestsTable {
  id: Generated<number>;
  project: string;
  environment: string;
  title: string | null;
  state: Generated<'Draft' | 'In review' | 'Approved' | 'Scheduled' | 'Applied' | 'Cancelled' | 'Rejected'>;
  min_approvals: Generated<number>;
  created_by_user_id: number | null;
  created_at: Timestamp;
  state_timestamps: JsonDefault<Record<string, string>>;
  scheduled_at: NullableTimestamp;
  scheduled_by_user_id: number | null;
  schedule_status: 'pending' | 'failed' | 'suspended' | null;
  schedule_reason: string | null;
}

export type ChangeRequestState = Selectable<ChangeRequestsTable>['state'];

export interface ChangeRequestChangesTable {
  id: Generated<number>;
  change_request_id: number;
  feature: string | null;
  action: string;
  change: Json<unknown>;
  created_by_user_id: number | null;
  created_at: Timestamp;
}

export interface ChangeRequestReviewsTable {
  change_request_id: number;
  user_id: number;
  verdict: 'approved' | 'rejected';
  created_at: Timestamp;
}

export interface ChangeRequestCommentsTable {
  id: Generated<number>;
  change_request_id: number;
  user_id: number | null;
  text: string;
  created_at: Timestamp;
}

export interface ChangeRequestReviewersTable {
  change_request_id: number;
  user_id: number;
}

export interface BannersTable {
  id: Generated<number>;
  enabled: Generated<boolean>;
  message: string;
  variant: Generated<'info' | 'warning' | 'error' | 'success'>;
  sticky: Generated<boolean>;
  icon: string | null;
  link: string | null;
  link_text: string | null;
  dialog_title: string | null;
  dialog: string | null;
  created_at: Timestamp;
}

export interface SignalEndpointsTable {
  id: Generated<number>;
  name: string;
  description: string | null;
  enabled: Generated<boolean>;
  created_at: Timestamp;
  created_by_user_id: number | null;
}

export interface SignalEndpointTokensTable {
  id: Generated<number>;
  signal_endpoint_id: number;
  name: string;
  token_hash: string;
  created_at: Timestamp;
  created_by_user_id: number | null;
}

export interface SignalsTable {
  id: Generated<number>;
  source: Generated<'signal-endpoint'>;
  source_id: number;
  created_by_source_token_id: number | null;
  token_name: string | null;
  payload: Json<unknown>;
  created_at: Timestamp;
  processed_at: NullableTimestamp;
}

export interface ActionSetsTable {
  id: Generated<number>;
  project: string;
  name: string;
  description: string | null;
  enabled: Generated<boolean>;
  actor_id: number | null;
  match_source: Generated<'signal-endpoint'>;
  match_source_id: number;
  match_payload: JsonDefault<Record<string, unknown>>;
  created_at: Timestamp;
  created_by_user_id: number | null;
}

export interface ActionsTable {
  id: Generated<number>;
  action_set_id: number;
  action: string;
  sort_order: number;
  execution_params: JsonDefault<Record<string, unknown>>;
  created_at: Timestamp;
  created_by_user_id: number | null;
}

export interface ActionSetEventsTable {
  id: Generated<number>;
  action_set_id: number;
  signal_id: number;
  state: 'started' | 'success' | 'failed';
  signal: Json<unknown>;
  action_set: Json<unknown>;
  created_at: Timestamp;
}

export interface ReleasePlanTemplatesTable {
  id: string;
  name: string;
  description: string | null;
  created_at: Timestamp;
  created_by_user_id: number | null;
  archived_at: NullableTimestamp;
}

export interface ReleasePlansTable {
  id: string;
  template_id: string | null;
  feature_name: string;
  environment: string;
  name: string;
  description: string | null;
  active_milestone_id: string | null;
  created_at: Timestamp;
  created_by_user_id: number | null;
}

export interface ReleasePlanMilestonesTable {
  id: string;
  template_id: string | null;
  plan_id: string | null;
  name: string;
  sort_order: number;
  strategies: JsonDefault<unknown[]>;
  started_at: NullableTimestamp;
  paused_at: NullableTimestamp;
  progression_target: string | null;
  progression_minutes: number | null;
  progression_executed_at: NullableTimestamp;
}

/** SDK metrics per flag, application, environment and hour (written by the client API's batch). */
export interface ClientMetricsEnvTable {
  feature_name: string;
  app_name: string;
  environment: string;
  timestamp: Timestamp;
  yes: Generated<number>;
  no: Generated<number>;
}

export interface ReleasePlanSafeguardsTable {
  id: string;
  plan_id: string;
  metric: 'no_share' | 'exposures';
  time_range: 'hour' | 'day' | 'week' | 'month';
  operator: '>' | '<';
  threshold: number;
  created_at: Timestamp;
}

export interface ReleasePlanStrategiesTable {
  strategy_id: string;
  plan_id: string;
  milestone_id: string;
}

export interface DB {
  environments: EnvironmentsTable;
  projects: ProjectsTable;
  project_environments: ProjectEnvironmentsTable;
  features: FeaturesTable;
  user_feedback: UserFeedbackTable;
  user_splash: UserSplashTable;
  feature_types: FeatureTypesTable;
  feature_environments: FeatureEnvironmentsTable;
  feature_lifecycles: FeatureLifecyclesTable;
  feature_dependencies: FeatureDependenciesTable;
  favorite_features: FavoriteFeaturesTable;
  feature_links: FeatureLinksTable;
  feature_strategies: FeatureStrategiesTable;
  feature_strategy_segment: FeatureStrategySegmentTable;
  feature_tag: FeatureTagTable;
  segments: SegmentsTable;
  tags: TagsTable;
  tag_types: TagTypesTable;
  strategies: StrategiesTable;
  context_fields: ContextFieldsTable;
  events: EventsTable;
  event_counts: EventCountsTable;
  api_tokens: ApiTokensTable;
  users: UsersTable;
  reset_tokens: ResetTokensTable;
  groups: GroupsTable;
  group_user: GroupUserTable;
  group_role: GroupRoleTable;
  roles: RolesTable;
  role_permissions: RolePermissionsTable;
  role_user: RoleUserTable;
  user_sessions: UserSessionsTable;
  personal_access_tokens: PersonalAccessTokensTable;
  public_signup_tokens: PublicSignupTokensTable;
  public_signup_tokens_user: PublicSignupTokensUserTable;
  change_request_settings: ChangeRequestSettingsTable;
  change_requests: ChangeRequestsTable;
  change_request_changes: ChangeRequestChangesTable;
  change_request_reviews: ChangeRequestReviewsTable;
  change_request_comments: ChangeRequestCommentsTable;
  change_request_reviewers: ChangeRequestReviewersTable;
  banners: BannersTable;
  signal_endpoints: SignalEndpointsTable;
  signal_endpoint_tokens: SignalEndpointTokensTable;
  signals: SignalsTable;
  action_sets: ActionSetsTable;
  actions: ActionsTable;
  action_set_events: ActionSetEventsTable;
  release_plan_templates: ReleasePlanTemplatesTable;
  release_plans: ReleasePlansTable;
  release_plan_milestones: ReleasePlanMilestonesTable;
  release_plan_strategies: ReleasePlanStrategiesTable;
  release_plan_safeguards: ReleasePlanSafeguardsTable;
  client_metrics_env: ClientMetricsEnvTable;
}
