/** Query keys of the application pages; an edit or delete on the overview invalidates `all`. */
export const applicationKeys = {
  all: ['applications'] as const,
  list: (params: object) => ['applications', 'list', params] as const,
  details: (appName: string) => ['applications', 'details', appName] as const,
  overview: (appName: string) => ['applications', 'overview', appName] as const,
};
