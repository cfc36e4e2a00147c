import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';

const Parameter = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Parameter name.',
      examples: ['percentage'],
    }),
    type: Type.Enum(['string', 'percentage', 'list', 'number', 'boolean'], {
      description: 'Parameter type.',
      examples: ['percentage'],
    }),
    description: Type.Optional(Type.String({ maxLength: 1000, description: 'What the parameter does.' })),
    required: Type.Optional(
      Type.Boolean({ description: 'Must be set when the strategy is used (default false).' }),
    ),
  },
  { description: 'A strategy parameter.' },
);
const ParameterOut = Type.Object(
  {
    name: Type.String({ description: 'Parameter name.' }),
    type: Type.String({ description: 'Parameter type.' }),
    description: Type.String({ description: 'What the parameter does.' }),
    required: Type.Boolean({ description: 'Must be set when the strategy is used.' }),
  },
  { description: 'A strategy parameter.' },
);

export const StrategyDefinitionSchema = Type.Object(
  {
    title: Nullable(Type.String({ description: 'Optional title.' })),
    name: Type.String({ description: 'The strategy type name.', examples: ['flexibleRollout'] }),
    displayName: Nullable(
      Type.String({ description: 'Human-friendly name.', examples: ['Gradual rollout'] }),
    ),
    description: Nullable(Type.String({ description: 'What the strategy does.' })),
    editable: Type.Boolean({ description: 'False for the built-in strategies.' }),
    deprecated: Type.Boolean({ description: 'Deprecated strategies stay usable but are hidden in UIs.' }),
    parameters: Type.Array(ParameterOut, { description: 'Parameters of the strategy.' }),
  },
  { description: 'A strategy definition (activation strategy type).' },
);
export type StrategyDefinition = Static<typeof StrategyDefinitionSchema>;
export const StrategyListSchema = Type.Object(
  {
    version: Type.Integer({ description: 'Schema version, always 1.', examples: [1] }),
    strategies: Type.Array(StrategyDefinitionSchema, { description: 'All strategy definitions.' }),
  },
  { description: 'The strategy definitions.' },
);

export const CreateStrategyBody = Type.Object(
  {
    name: Type.String({
      pattern: '^[a-zA-Z0-9_.~-]{1,100}$',
      description: 'Unique name: 1-100 URL-safe characters.',
      examples: ['my-strategy'],
    }),
    title: Type.Optional(Nullable(Type.String({ maxLength: 255, description: 'Human-friendly title.' }))),
    description: Type.Optional(
      Nullable(Type.String({ maxLength: 10_000, description: 'What the strategy does.' })),
    ),
    parameters: Type.Array(Parameter, { maxItems: 100, description: 'Parameters of the strategy.' }),
  },
  { description: 'A new custom strategy type.' },
);
export type CreateStrategyInput = Static<typeof CreateStrategyBody>;
export const UpdateStrategyBody = Type.Object(
  {
    title: Type.Optional(Nullable(Type.String({ maxLength: 255, description: 'Human-friendly title.' }))),
    description: Type.Optional(
      Nullable(Type.String({ maxLength: 10_000, description: 'What the strategy does.' })),
    ),
    parameters: Type.Array(Parameter, {
      maxItems: 100,
      description: 'The new parameter list (replaces the old one).',
    }),
  },
  { description: 'New settings of a custom strategy type.' },
);
export type UpdateStrategyInput = Static<typeof UpdateStrategyBody>;
export const NameParams = Type.Object({
  name: Type.String({ maxLength: 100, description: 'The strategy name.', examples: ['my-strategy'] }),
});
export const StrategyNameParams = Type.Object({
  strategyName: Type.String({ maxLength: 100, description: 'The strategy name.', examples: ['my-strategy'] }),
});
