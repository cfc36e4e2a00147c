import { type Static, Type } from 'typebox';
import { OPERATORS } from '../../evaluation/index.js';
import { Nullable } from '../../platform/http/schemas.js';
import { SignalSchema } from '../signals/index.js';

/** Action sets as Unleash's web UI sends and reads them (its `interfaces/action.ts`). */

const Id = (description: string) => Type.Integer({ minimum: 1, maximum: 2_147_483_647, description });

/** How one payload field must look; the constraint operators and their value rules. */
export const ParameterMatch = Type.Object(
  {
    operator: Type.Enum([...OPERATORS], { description: 'A constraint operator.', examples: ['IN'] }),
    inverted: Type.Optional(Type.Boolean({ description: 'Negate the outcome.' })),
    caseInsensitive: Type.Optional(Type.Boolean({ description: 'Compare case-insensitively.' })),
    value: Type.Optional(
      Type.String({ maxLength: 1000, description: 'The value of the single-value operators.' }),
    ),
    values: Type.Optional(
      Type.Array(Type.String({ maxLength: 1000 }), {
        maxItems: 1000,
        description: 'The values of the multi-value operators.',
      }),
    ),
  },
  { description: 'A filter on one field of the signal’s payload.' },
);
export type ParameterMatchInput = Static<typeof ParameterMatch>;

export const MatchSchema = Type.Object(
  {
    source: Type.Literal('signal-endpoint', { description: 'What the signals come from.' }),
    sourceId: Id('The signal endpoint whose signals it listens to.'),
    payload: Type.Record(
      Type.String({ minLength: 1, maxLength: 500, pattern: '^[^.]+(\\.[^.]+)*$' }),
      ParameterMatch,
      {
        maxProperties: 100,
        description:
          'Filters on the payload by field path (`a.b.c`; an array element by its index): every one must hold. None: every signal.',
      },
    ),
  },
  { description: 'Which signals start the action set.' },
);

export const ActionBody = Type.Object(
  {
    action: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'What to do (see `GET …/actions/config`).',
      examples: ['TOGGLE_FEATURE_ON'],
    }),
    sortOrder: Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'The order of execution.' }),
    executionParams: Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), {
      maxProperties: 20,
      description: 'The action’s parameters (`project`, `environment`, `featureName`).',
    }),
  },
  { description: 'One action of an action set.' },
);

export const ActionSetBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'The action set’s name (unique in its project).',
    }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000, description: 'What it is for.' }))),
    enabled: Type.Optional(Type.Boolean({ description: 'Runs on matching signals (default true).' })),
    actorId: Id('The service account the actions run as, with its permissions.'),
    match: MatchSchema,
    actions: Type.Array(ActionBody, {
      minItems: 1,
      maxItems: 50,
      description: 'What it does, in sort order.',
    }),
  },
  { description: 'An action set to create, or its new content.' },
);
export type ActionSetInput = Static<typeof ActionSetBody>;

const ActionSchema = Type.Object(
  {
    id: Type.Integer({ description: 'The action’s id.' }),
    action: Type.String({ description: 'What it does.' }),
    sortOrder: Type.Integer({ description: 'The order of execution.' }),
    executionParams: Type.Record(Type.String(), Type.Unknown(), { description: 'Its parameters.' }),
    createdAt: Type.String({ format: 'date-time', description: 'When it was created.' }),
    createdByUserId: Nullable(Type.Integer({ description: 'Who created it.' })),
  },
  { description: 'One action of an action set.' },
);
export type Action = Static<typeof ActionSchema>;

const actionSetProperties = {
  id: Type.Integer({ description: 'The action set’s id.' }),
  project: Type.String({ description: 'Its project.' }),
  name: Type.String({ description: 'Its name.' }),
  description: Nullable(Type.String({ description: 'What it is for.' })),
  enabled: Type.Boolean({ description: 'Runs on matching signals.' }),
  actorId: Nullable(Type.Integer({ description: 'The service account it runs as (null once deleted).' })),
  match: MatchSchema,
  createdAt: Type.String({ format: 'date-time', description: 'When it was created.' }),
  createdByUserId: Nullable(Type.Integer({ description: 'Who created it.' })),
};

export const ActionSetSchema = Type.Object(
  { ...actionSetProperties, actions: Type.Array(ActionSchema, { description: 'Its actions, in order.' }) },
  { description: 'What a project does when a matching signal arrives.' },
);
export type ActionSet = Static<typeof ActionSetSchema>;

export const ActionSetListSchema = Type.Object(
  { actions: Type.Array(ActionSetSchema, { description: 'The project’s action sets, by id.' }) },
  { description: 'The action sets.' },
);

export const ActionState = Type.Union(
  [Type.Literal('not started'), Type.Literal('started'), Type.Literal('success'), Type.Literal('failed')],
  { description: 'How the action went.' },
);

const ActionEventSchema = Type.Object(
  {
    ...ActionSchema.properties,
    state: ActionState,
    details: Type.Optional(Nullable(Type.String({ description: 'Why it failed.' }))),
  },
  { description: 'One action of a run, with its outcome.' },
);
export type ActionEvent = Static<typeof ActionEventSchema>;

export const ActionSetEventSchema = Type.Object(
  {
    id: Type.Integer({ description: 'The run’s id (increasing).' }),
    actionSetId: Type.Integer({ description: 'The action set.' }),
    signalId: Type.Integer({ description: 'The signal that started it.' }),
    createdAt: Type.String({ format: 'date-time', description: 'When it ran.' }),
    state: Type.Union([Type.Literal('started'), Type.Literal('success'), Type.Literal('failed')], {
      description: '`success` when every action succeeded.',
    }),
    signal: SignalSchema,
    actionSet: Type.Object(
      {
        ...actionSetProperties,
        actions: Type.Array(ActionEventSchema, { description: 'Each action’s outcome.' }),
      },
      { description: 'The action set as it ran.' },
    ),
  },
  { description: 'One run of an action set.' },
);
export type ActionSetEvent = Static<typeof ActionSetEventSchema>;

export const ActionSetEventListSchema = Type.Object(
  { actionSetEvents: Type.Array(ActionSetEventSchema, { description: 'Newest first.' }) },
  { description: 'The action set’s runs.' },
);

const Parameter = Type.Object({
  name: Type.String({ description: 'The parameter.' }),
  label: Type.String({ description: 'Its label.' }),
  type: Type.Union([Type.Literal('select'), Type.Literal('hidden')], { description: 'How it is chosen.' }),
  optional: Type.Optional(Type.Boolean({ description: 'May be left out.' })),
  options: Type.Optional(Type.Array(Type.String(), { description: 'What it can be.' })),
});

export const ActionConfigSchema = Type.Record(
  Type.String(),
  Type.Object({
    label: Type.String({ description: 'Its label.' }),
    description: Type.String({ description: 'What it does.' }),
    category: Type.String({ description: 'Its group.' }),
    permissions: Type.Array(Type.String(), { description: 'What the service account needs.' }),
    parameters: Type.Array(Parameter, { description: 'Its parameters.' }),
  }),
  { description: 'The actions an action set of this project can run, by name.' },
);

export const ProjectParams = Type.Object({
  projectId: Type.String({ maxLength: 100, description: 'The project id.' }),
});
export const ActionSetParams = Type.Object({
  projectId: Type.String({ maxLength: 100, description: 'The project id.' }),
  id: Id('The action set’s id.'),
});
export { PageQuery as EventsQuery } from '../signals/index.js';
