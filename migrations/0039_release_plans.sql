-- Release plans (issue 48), as Unleash names them: templates of ordered milestones, each with the
-- strategies it puts on a flag environment; a plan is a template applied to one flag environment.
-- Starting a milestone replaces the plan's strategies there (`release_plan_strategies` says which
-- of the flag environment's strategies are the plan's) with that milestone's.

CREATE TABLE release_plan_templates (
  id text PRIMARY KEY,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  description text,
  created_at timestamptz NOT NULL,
  created_by_user_id integer REFERENCES users (id) ON DELETE SET NULL,
  archived_at timestamptz
);
-- Names are unique among the templates in use (an archived one frees its name).
CREATE UNIQUE INDEX release_plan_templates_name ON release_plan_templates (name) WHERE archived_at IS NULL;

-- One plan per flag environment.
CREATE TABLE release_plans (
  id text PRIMARY KEY,
  template_id text REFERENCES release_plan_templates (id) ON DELETE SET NULL,
  feature_name text NOT NULL REFERENCES features (name) ON DELETE CASCADE ON UPDATE CASCADE,
  environment text NOT NULL REFERENCES environments (name) ON DELETE CASCADE ON UPDATE CASCADE,
  name text NOT NULL,
  description text,
  active_milestone_id text,
  created_at timestamptz NOT NULL,
  created_by_user_id integer REFERENCES users (id) ON DELETE SET NULL,
  UNIQUE (feature_name, environment)
);

-- A milestone belongs to a template or to a plan (a plan's are copies of its template's).
-- `strategies`: the strategies it puts on the flag environment, as a strategy is created.
-- Progression: after `progression_minutes` from its start, the job starts `progression_target`.
CREATE TABLE release_plan_milestones (
  id text PRIMARY KEY,
  template_id text REFERENCES release_plan_templates (id) ON DELETE CASCADE,
  plan_id text REFERENCES release_plans (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  sort_order integer NOT NULL,
  strategies jsonb NOT NULL DEFAULT '[]',
  started_at timestamptz,
  paused_at timestamptz,
  progression_target text REFERENCES release_plan_milestones (id) ON DELETE SET NULL,
  progression_minutes integer CHECK (progression_minutes >= 1),
  progression_executed_at timestamptz,
  CHECK ((template_id IS NULL) <> (plan_id IS NULL))
);
CREATE INDEX release_plan_milestones_template ON release_plan_milestones (template_id, sort_order);
CREATE INDEX release_plan_milestones_plan ON release_plan_milestones (plan_id, sort_order);

-- The flag environment's strategies the plan put there (gone with the strategy or the plan).
CREATE TABLE release_plan_strategies (
  strategy_id text PRIMARY KEY REFERENCES feature_strategies (id) ON DELETE CASCADE,
  plan_id text NOT NULL REFERENCES release_plans (id) ON DELETE CASCADE,
  milestone_id text NOT NULL REFERENCES release_plan_milestones (id) ON DELETE CASCADE
);
CREATE INDEX release_plan_strategies_plan ON release_plan_strategies (plan_id);

-- A safeguard on a plan: while its condition holds on the flag's own metrics in that environment
-- (e.g. the share of `no` answers in the last hour above a threshold), the progression job pauses
-- the plan, saying why. One per plan.
CREATE TABLE release_plan_safeguards (
  id text PRIMARY KEY,
  plan_id text NOT NULL UNIQUE REFERENCES release_plans (id) ON DELETE CASCADE,
  metric text NOT NULL CHECK (metric IN ('no_share', 'exposures')),
  time_range text NOT NULL CHECK (time_range IN ('hour', 'day', 'week', 'month')),
  operator text NOT NULL CHECK (operator IN ('>', '<')),
  threshold double precision NOT NULL,
  created_at timestamptz NOT NULL
);
