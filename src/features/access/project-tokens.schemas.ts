import { type Static, Type } from 'typebox';
import { ProjectIdParam } from '../shapes/index.js';

export const CreateProjectApiTokenBody = Type.Object(
  {
    tokenName: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Name of the token.',
      examples: ['checkout-service'],
    }),
    type: Type.String({
      pattern: '^([Cc][Ll][Ii][Ee][Nn][Tt]|[Bb][Aa][Cc][Kk][Ee][Nn][Dd]|[Ff][Rr][Oo][Nn][Tt][Ee][Nn][Dd])$',
      description: 'backend (alias client) or frontend, in any letter case.',
      examples: ['backend'],
    }),
    environment: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'The environment the token reads (default development).',
        examples: ['development'],
      }),
    ),
    expiresAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'When the token stops working (a future time).' }),
    ),
  },
  { description: 'A new API token for this project only.' },
);
export type CreateProjectApiTokenInput = Static<typeof CreateProjectApiTokenBody>;

export const ProjectTokenParams = Type.Object({
  projectId: ProjectIdParam,
  token: Type.String({
    maxLength: 400,
    description: 'The full token secret, as returned at creation.',
    examples: ['default:development.4d2f…'],
  }),
});
