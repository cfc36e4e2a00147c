import { Alert, Button, Group, List, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { post } from '../api';
import { useEnvironments, useProjects } from '../queries';

/** The parts of an export (`exportResultSchema`) the preview counts; the rest passes through. */
export interface ExportDocument {
  features: { name: string; project: string; archived?: boolean }[];
  featureStrategies: unknown[];
  featureEnvironments?: unknown[];
  contextFields?: unknown[];
  featureTags?: unknown[];
  segments?: unknown[];
  tagTypes: unknown[];
  dependencies?: unknown[];
  links?: unknown[];
}

const ALL = '*';
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "3 flags, 4 strategies, …": what a document holds, for the export preview and the import. */
export function describeDocument(doc: ExportDocument): string {
  return [
    plural(doc.features.length, 'flag'),
    plural(doc.featureStrategies.length, 'strategy', 'strategies'),
    plural(doc.featureTags?.length ?? 0, 'tag'),
    plural(doc.contextFields?.length ?? 0, 'context field'),
    plural(doc.segments?.length ?? 0, 'segment'),
    plural(doc.dependencies?.length ?? 0, 'dependency', 'dependencies'),
  ].join(', ');
}

/**
 * Export: one environment and a selection (the server's precedence: tag, then names, then project,
 * else every active flag). The answer becomes a file to download (Blob + object URL) and can be
 * handed to the import form.
 */
export function ExportSection({ onUse }: { onUse: (json: string) => void }) {
  const environments = useEnvironments();
  const projects = useProjects();
  const [environment, setEnvironment] = useState<string | null>(null);
  const [project, setProject] = useState<string>(ALL);
  const [tag, setTag] = useState('');
  const [names, setNames] = useState('');
  const features = names
    .split(/[\s,]+/)
    .map((n) => n.trim())
    .filter(Boolean);
  const env = environment ?? environments.data?.[0]?.name ?? null;

  const run = useMutation({
    mutationFn: (body: Record<string, unknown>) =>
      post<ExportDocument>('api/admin/features-batch/export', body),
  });
  const doc = run.data;
  const json = useMemo(() => (doc ? JSON.stringify(doc, null, 2) : null), [doc]);
  const [href, setHref] = useState<string | null>(null);
  // One object URL per export, released when replaced or when the page goes.
  useEffect(() => {
    if (json === null) return;
    const url = URL.createObjectURL(new Blob([json], { type: 'application/json' }));
    setHref(url);
    return () => URL.revokeObjectURL(url);
  }, [json]);
  const fileName = `export-${env ?? 'flags'}-${new Date().toISOString().slice(0, 10)}.json`;

  return (
    <Stack component="section" aria-labelledby="export-heading" gap="sm">
      <Title order={2} size="h3" id="export-heading">
        Export
      </Title>
      <Text size="sm" c="dimmed">
        Exports the flags' configuration in one environment. A tag wins over flag names, names win over the
        project; with none of them every active flag is exported.
      </Text>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!env) return;
          run.mutate({
            environment: env,
            ...(tag.trim() && { tag: tag.trim() }),
            ...(project !== ALL && { project }),
            features,
          });
        }}
      >
        <Stack maw={640} gap="sm">
          <Group grow align="start">
            <Select
              label="Environment"
              required
              data={(environments.data ?? []).map((e) => e.name)}
              value={env}
              onChange={setEnvironment}
              allowDeselect={false}
            />
            <Select
              label="Project"
              data={[
                { value: ALL, label: 'All projects' },
                ...(projects.data ?? []).map((p) => ({ value: p.id, label: p.name })),
              ]}
              value={project}
              onChange={(v) => setProject(v ?? ALL)}
              allowDeselect={false}
            />
          </Group>
          <TextInput
            label="Tag"
            description="Optional: a tag value, or type:value."
            value={tag}
            onChange={(e) => setTag(e.currentTarget.value)}
          />
          <TextInput
            label="Flag names"
            description="Optional: names separated by commas or spaces."
            value={names}
            onChange={(e) => setNames(e.currentTarget.value)}
          />
          <Group>
            <Button type="submit" loading={run.isPending} disabled={!env}>
              Export
            </Button>
          </Group>
        </Stack>
      </form>
      {doc && json && (
        <Alert
          color="green"
          title="Export ready"
          role="status"
          styles={{ title: { color: 'var(--mantine-color-text)' } }}
        >
          <Stack gap="xs">
            <Text size="sm">
              {describeDocument(doc)} from {env}.
            </Text>
            {doc.features.length > 0 && (
              <List size="sm">
                {doc.features.slice(0, 20).map((f) => (
                  <List.Item key={f.name}>
                    {f.name} ({f.project}
                    {f.archived && ', archived'})
                  </List.Item>
                ))}
                {doc.features.length > 20 && <List.Item>and {doc.features.length - 20} more</List.Item>}
              </List>
            )}
            <Group>
              {href && (
                <Button component="a" href={href} download={fileName}>
                  Download JSON
                </Button>
              )}
              <Button variant="default" onClick={() => onUse(json)}>
                Use in import
              </Button>
            </Group>
          </Stack>
        </Alert>
      )}
    </Stack>
  );
}
