import { Type } from 'typebox';

export const FlagNamesBody = Type.Object(
  {
    features: Type.Array(Type.String({ minLength: 1, maxLength: 100, description: 'A flag name.' }), {
      maxItems: 1000,
      description: 'The flags to archive.',
      examples: [['old-checkout']],
    }),
  },
  { description: 'A list of flag names for a bulk operation.' },
);

export const ArchiveValidationSchema = Type.Object(
  {
    parentsWithChildFeatures: Type.Array(Type.String({ description: 'A flag name.' }), {
      description: 'Listed flags that are parents of flags not listed: archiving them would orphan those.',
    }),
    hasDeletedDependencies: Type.Boolean({
      description: 'Whether any dependency of the listed flags would be removed by archiving them.',
    }),
  },
  { description: 'What archiving the flags would do.' },
);
