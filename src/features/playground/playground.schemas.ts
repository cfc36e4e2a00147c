import { type Static, Type } from 'typebox';

export const ContextSchema = Type.Object(
  {
    appName: Type.String({
      minLength: 1,
      description: 'The application name (non-empty).',
      examples: ['web'],
    }),
    currentTime: Type.Optional(
      Type.String({ format: 'date-time', description: 'Evaluation time; defaults to now.' }),
    ),
    environment: Type.Optional(
      Type.String({ description: 'Deprecated: the environment the app runs in.', deprecated: true }),
    ),
    properties: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description: 'Custom context properties (string values).',
        examples: [{ region: 'eu' }],
      }),
    ),
    remoteAddress: Type.Optional(Type.String({ description: 'Client IP address.', examples: ['10.0.0.1'] })),
    sessionId: Type.Optional(Type.String({ description: 'Session identifier.', examples: ['s-1'] })),
    userId: Type.Optional(Type.String({ description: 'User identifier.', examples: ['user-42'] })),
  },
  {
    additionalProperties: true,
    description: 'The evaluation context. Other top-level names are extra context fields.',
  },
);
export type PlaygroundContext = Static<typeof ContextSchema>;

const Projects = Type.Union(
  [
    Type.Array(Type.String({ description: 'A project id.' }), { description: 'Project ids.' }),
    Type.Literal('*', { description: 'All projects.' }),
  ],
  { description: 'Projects whose flags are evaluated: a list or "*" (all, the default).' },
);

export const PlaygroundBody = Type.Object({
  environment: Type.String({ description: 'The environment to evaluate in.', examples: ['development'] }),
  projects: Type.Optional(Projects),
  context: ContextSchema,
});
export type PlaygroundInput = Static<typeof PlaygroundBody>;

export const AdvancedPlaygroundBody = Type.Object({
  environments: Type.Array(
    Type.String({ pattern: '^[a-zA-Z0-9~_.-]+$', description: 'An environment name.' }),
    { minItems: 1, description: 'Environments to evaluate in (at least one).', examples: [['development']] },
  ),
  projects: Type.Optional(Projects),
  context: ContextSchema,
});
export type AdvancedPlaygroundInput = Static<typeof AdvancedPlaygroundBody>;

const Anything = (description: string) => Type.Unknown({ description });

const ConstraintResult = Type.Object(
  {
    contextName: Type.String({ description: 'Context field.' }),
    operator: Type.String({ description: 'Operator.' }),
    caseInsensitive: Type.Optional(Type.Boolean({ description: 'Case-insensitive comparison.' })),
    inverted: Type.Optional(Type.Boolean({ description: 'Outcome negated.' })),
    values: Type.Optional(Type.Array(Type.String(), { description: 'Values of multi-value operators.' })),
    value: Type.Optional(Type.String({ description: 'Value of single-value operators.' })),
    result: Type.Boolean({ description: 'Whether the constraint holds for the context.' }),
  },
  { description: 'A constraint and its result.' },
);

const VariantResult = Type.Object(
  {
    name: Type.String({ description: 'Variant name; "disabled" when none.' }),
    enabled: Type.Boolean({ description: 'Whether a variant was chosen.' }),
    payload: Type.Optional(
      Type.Object(
        {
          type: Type.String({ description: 'Payload type.' }),
          value: Type.String({ description: 'Payload, stringified.' }),
        },
        { description: 'Data delivered with the variant.' },
      ),
    ),
    feature_enabled: Type.Optional(Type.Boolean({ description: 'Whether the flag is enabled.' })),
    featureEnabled: Type.Optional(
      Type.Boolean({ description: 'Deprecated twin of feature_enabled.', deprecated: true }),
    ),
  },
  { description: 'The variant an SDK would return.' },
);

const StrategyResult = Type.Object(
  {
    name: Type.String({ description: 'Strategy type.' }),
    id: Type.String({ description: 'Strategy id.' }),
    title: Type.Optional(Type.String({ description: 'Strategy title.' })),
    disabled: Type.Union([Type.Boolean(), Type.Null()], { description: 'Whether the strategy is disabled.' }),
    parameters: Type.Record(Type.String(), Type.String(), { description: 'Strategy parameters.' }),
    result: Type.Object(
      {
        enabled: Type.Union([Type.Boolean(), Type.Literal('unknown')], {
          description: 'true, false, or "unknown" for strategies the server cannot decide.',
        }),
        evaluationStatus: Type.String({ description: 'complete, incomplete or unevaluated.' }),
        variant: Type.Optional(VariantResult),
        variants: Type.Optional(
          Type.Array(Anything('A strategy variant.'), { description: 'Strategy variants.' }),
        ),
      },
      { description: 'The strategy outcome.' },
    ),
    constraints: Type.Array(ConstraintResult, { description: 'Constraint results.' }),
    segments: Type.Array(
      Type.Object(
        {
          id: Type.Integer({ description: 'Segment id.' }),
          name: Type.String({ description: 'Segment name.' }),
          result: Type.Boolean({ description: 'Whether all segment constraints hold.' }),
          constraints: Type.Array(ConstraintResult, { description: 'Segment constraint results.' }),
        },
        { description: 'A segment and its result.' },
      ),
      { description: 'Segment results.' },
    ),
    links: Type.Object(
      { edit: Type.String({ description: 'UI path to edit the strategy.' }) },
      { description: 'Related links.' },
    ),
  },
  { description: 'One strategy and its evaluation.' },
);

const evaluationFields = {
  name: Type.String({ description: 'Flag name.' }),
  projectId: Type.String({ description: 'Project of the flag.' }),
  strategies: Type.Object(
    {
      result: Type.Union([Type.Boolean(), Type.Literal('unknown')], {
        description: 'true if any strategy is true, else "unknown" if any is, else false.',
      }),
      data: Type.Array(StrategyResult, { description: 'Every strategy, in order.' }),
    },
    { description: 'Strategy results.' },
  ),
  hasUnsatisfiedDependency: Type.Boolean({ description: 'A parent dependency is not satisfied.' }),
  isEnabledInCurrentEnvironment: Type.Boolean({ description: 'The flag is on in the environment.' }),
  isEnabled: Type.Boolean({ description: 'What an SDK would answer for isEnabled.' }),
  variant: VariantResult,
  feature_enabled: Type.Boolean({ description: 'Same as isEnabled.' }),
  variants: Type.Array(Anything('A variant definition.'), { description: 'The variants considered.' }),
};

export const PlaygroundResponse = Type.Object({
  input: Anything('The request body, echoed.'),
  features: Type.Array(
    Type.Object(
      {
        ...evaluationFields,
        featureEnabled: Type.Boolean({ description: 'Deprecated: same as isEnabled.', deprecated: true }),
      },
      { description: 'A flag and its evaluation.' },
    ),
    { description: 'Every matching flag.' },
  ),
});

export const AdvancedPlaygroundResponse = Type.Object({
  input: Anything('The request body, echoed.'),
  features: Type.Array(
    Type.Object(
      {
        name: Type.String({ description: 'Flag name.' }),
        projectId: Type.String({ description: 'Project of the flag.' }),
        environments: Type.Record(
          Type.String(),
          Type.Array(
            Type.Object(
              {
                ...evaluationFields,
                environment: Type.String({ description: 'The environment evaluated.' }),
                context: Anything('The context combination evaluated.'),
              },
              { description: 'The evaluation for one context combination.' },
            ),
            { description: 'One entry per context combination.' },
          ),
          { description: 'Results per environment.' },
        ),
      },
      { description: 'A flag and its evaluations.' },
    ),
    { description: 'Every matching flag.' },
  ),
  warnings: Type.Object(
    {
      invalidContextProperties: Type.Array(Type.String(), {
        description: 'Top-level context entries that were not strings and were ignored.',
      }),
    },
    { description: 'Warnings about the input.' },
  ),
});
