/** The parts of the service's answers the UI reads (the wire format: see the OpenAPI document). */
export interface Grant {
  permission: string;
  project?: string;
  environment?: string;
}
export interface Me {
  user: { id?: number; name?: string | null; username?: string | null; email?: string | null };
  permissions: Grant[];
}
export interface Project {
  id: string;
  name: string;
  description?: string | null;
  featureCount?: number;
  memberCount?: number;
  health?: number;
}
export interface Environment {
  name: string;
  type: string;
  enabled: boolean;
  sortOrder: number;
}
export interface SearchFlag {
  name: string;
  type: string;
  description?: string | null;
  project: string;
  stale: boolean;
  createdAt: string;
  environments: { name: string; enabled: boolean }[];
}
export interface Constraint {
  contextName: string;
  operator: string;
  values?: string[];
  value?: string;
  inverted?: boolean;
  caseInsensitive?: boolean;
}
export interface Strategy {
  id: string;
  name: string;
  title?: string | null;
  disabled?: boolean | null;
  sortOrder?: number;
  constraints: Constraint[];
  segments?: number[];
  parameters?: Record<string, string>;
  variants?: Variant[];
}
export interface FlagEnvironment {
  name: string;
  enabled: boolean;
  type: string;
  strategies: Strategy[];
  variants?: Variant[];
}
export interface Flag {
  name: string;
  type: string;
  description?: string | null;
  project: string;
  stale: boolean;
  impressionData: boolean;
  createdAt: string;
  environments: FlagEnvironment[];
  lifecycle?: { stage: string };
  tags?: { type: string; value: string }[];
  dependencies?: { feature: string; enabled?: boolean; variants?: string[] }[];
}
export interface Segment {
  id: number;
  name: string;
  description?: string | null;
  constraints: Constraint[];
  usedInFeatures?: number;
}
export interface ContextField {
  name: string;
  description?: string | null;
  stickiness?: boolean;
  legalValues?: { value: string }[];
}
export interface EventRow {
  id: number;
  createdAt: string;
  type: string;
  createdBy: string;
  environment?: string | null;
  project?: string | null;
  featureName?: string | null;
  data?: Record<string, unknown> | null;
  preData?: Record<string, unknown> | null;
}
export interface Variant {
  name: string;
  /** 0–1000 (tenths of a percent). */
  weight: number;
  weightType?: 'fix' | 'variable' | string;
  stickiness?: string;
  payload?: { type: 'string' | 'json' | 'number' | 'csv' | string; value: string };
}
export interface ApiToken {
  /** The display prefix in lists; the full secret only in the answer to a create. */
  secret: string;
  tokenName: string;
  type: string;
  environment: string;
  projects: string[];
  expiresAt?: string | null;
  createdAt: string;
  seenAt?: string | null;
}
export interface Role {
  id: number;
  name: string;
  type: string;
}
export interface User {
  id: number;
  name?: string | null;
  username?: string | null;
  email?: string | null;
  rootRole: number;
  seenAt?: string | null;
  createdAt: string;
}
