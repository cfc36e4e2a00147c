import { Type } from 'typebox';

export const MaintenanceSchema = Type.Object(
  { enabled: Type.Boolean({ description: 'Whether maintenance mode is on.', examples: [true] }) },
  { description: 'Maintenance mode: while on, configuration cannot change.' },
);
