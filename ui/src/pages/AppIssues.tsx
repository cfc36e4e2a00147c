import { Alert, List, Stack, Text, Title } from '@mantine/core';

/** `GET api/admin/metrics/applications/:appName/overview` (Unleash applicationOverviewSchema). */
export interface Overview {
  projects: string[];
  featureCount: number;
  environments: {
    name: string;
    instanceCount: number;
    sdks: string[];
    lastSeen: string | null;
    issues: { missingFeatures: string[]; outdatedSdks: string[] };
  }[];
  issues: { missingStrategies: string[] };
}

interface Issue {
  title: string;
  explanation: string;
  items: string[];
}

/** Every issue of the overview, one warning per kind and environment. */
export function issuesOf(overview: Overview): Issue[] {
  const issues: Issue[] = [];
  for (const e of overview.environments) {
    if (e.issues.missingFeatures.length > 0)
      issues.push({
        title: `Unknown flags in ${e.name}`,
        explanation:
          'The application asked for these flags, but no flag has the name: a typo, a deleted flag, or one still to create.',
        items: e.issues.missingFeatures,
      });
    if (e.issues.outdatedSdks.length > 0)
      issues.push({
        title: `Outdated SDKs in ${e.name}`,
        explanation: 'These SDK versions are older than the minimum recommended; upgrade them.',
        items: e.issues.outdatedSdks,
      });
  }
  if (overview.issues.missingStrategies.length > 0)
    issues.push({
      title: 'Unknown strategies',
      explanation: 'The SDK registered these strategies, but no strategy type has the name.',
      items: overview.issues.missingStrategies,
    });
  return issues;
}

export function AppIssues({ overview }: { overview: Overview }) {
  const issues = issuesOf(overview);
  return (
    <Stack gap="xs" component="section" aria-labelledby="application-issues">
      <Title order={2} size="h3" id="application-issues">
        Issues ({issues.length})
      </Title>
      {issues.length === 0 ? (
        <Text>No issues: every reported flag and strategy exists, and no SDK is outdated.</Text>
      ) : (
        issues.map((issue) => (
          <Alert
            key={issue.title}
            color="yellow"
            title={`Warning: ${issue.title}`}
            // The title in the body colour: yellow text on the light tint is below 4.5:1.
            styles={{ title: { color: 'var(--mantine-color-text)' } }}
          >
            <Text size="sm">{issue.explanation}</Text>
            <List size="sm" mt={4}>
              {issue.items.map((item) => (
                <List.Item key={item}>{item}</List.Item>
              ))}
            </List>
          </Alert>
        ))
      )}
    </Stack>
  );
}
