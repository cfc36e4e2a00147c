import { type Static, Type } from 'typebox';

export const HealthHistoryQuery = Type.Object({
  days: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 365,
      default: 30,
      description: 'How many UTC days, today included, to answer: 1 to 365; default 30.',
      examples: [30],
    }),
  ),
});

export const HealthDaySchema = Type.Object(
  {
    date: Type.String({ description: 'The UTC day.', examples: ['2026-11-23'] }),
    health: Type.Integer({
      minimum: 0,
      maximum: 100,
      description: 'Health that day (0-100): the share of flags neither stale nor potentially stale.',
      examples: [86],
    }),
    flags: Type.Integer({ minimum: 0, description: 'Non-archived flags.', examples: [14] }),
    stale: Type.Integer({ minimum: 0, description: 'Flags marked stale.', examples: [1] }),
    potentiallyStale: Type.Integer({
      minimum: 0,
      description: "Flags not stale but past their type's expected lifetime.",
      examples: [1],
    }),
  },
  { description: "A day's figures." },
);

export const HealthHistorySchema = Type.Object(
  {
    projectId: Type.String({ description: 'The project id.', examples: ['default'] }),
    days: Type.Array(HealthDaySchema, {
      description:
        'Oldest first. Past days as the health job last recorded them that day (days without a record are left out); the last item is today, computed when asked.',
    }),
  },
  { description: 'The health of a project over time.' },
);
export type HealthHistory = Static<typeof HealthHistorySchema>;
