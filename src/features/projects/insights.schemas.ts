import { type Static, Type } from 'typebox';
import { ProjectStatsSchema } from './projects.schemas.js';

export const DoraSchema = Type.Object(
  {
    projectAverage: Type.Number({
      description:
        'Mean days from creation to the first enabling in a production environment, over release flags (one decimal; 0 when none).',
    }),
    features: Type.Array(
      Type.Object({
        name: Type.String({ description: 'The flag name.' }),
        timeToProduction: Type.Number({
          description: 'Whole days from its creation to its first enabling in a production environment.',
        }),
      }),
      { description: 'Every flag of the project (archived ones too) that has been enabled in production.' },
    ),
  },
  { description: 'Lead time for changes (DORA) of the project.' },
);
export type Dora = Static<typeof DoraSchema>;

const HealthSummary = (description: string) =>
  Type.Object(
    {
      rating: Type.Integer({ description: 'The score (0-100).' }),
      activeCount: Type.Number({ description: 'Non-archived flags not marked stale.' }),
      potentiallyStaleCount: Type.Number({
        description: 'Flags past their expected lifetime, not marked stale.',
      }),
      staleCount: Type.Number({ description: 'Flags marked stale.' }),
    },
    { description },
  );

export const ProjectInsightsSchema = Type.Object(
  {
    stats: ProjectStatsSchema,
    health: HealthSummary('Deprecated: use technicalDebt. Health (100 - technical debt) with its counts.'),
    technicalDebt: HealthSummary('Technical debt (100 - health) with the counts behind it.'),
    leadTime: DoraSchema,
    featureTypeCounts: Type.Array(
      Type.Object({
        type: Type.String({ description: 'A flag type.' }),
        count: Type.Number({ description: 'Non-archived flags of that type.' }),
      }),
      { description: 'Non-archived flags per type.' },
    ),
    members: Type.Object(
      {
        currentMembers: Type.Number({
          description: 'Users holding a role in the project, directly or by group.',
        }),
        change: Type.Number({
          description:
            'Role grants of the project made in the last 30 days that still hold (see the operation).',
        }),
      },
      { description: 'Project members.' },
    ),
  },
  { description: 'Insights into a project, computed from its current data.' },
);
