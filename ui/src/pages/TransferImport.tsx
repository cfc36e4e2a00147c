import {
  Alert,
  Anchor,
  Button,
  FileInput,
  Group,
  List,
  Select,
  Stack,
  Text,
  Textarea,
  Title,
} from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { enc, post } from '../api';
import { useEnvironments, useProjects } from '../queries';
import { describeDocument, type ExportDocument } from './TransferExport';

/** `{message, affectedItems}`: one finding of `POST api/admin/features-batch/validate`. */
interface Finding {
  message: string;
  affectedItems: string[];
}
interface Validation {
  errors: Finding[];
  warnings: Finding[];
  permissions: Finding[];
}

/** The document to send, or why the text is not one (an export, or a whole import body). */
function parseDocument(text: string): { doc: ExportDocument } | { problem: string } {
  if (!text.trim()) return { problem: 'Paste an export or pick a file.' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { problem: `Not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  const candidate =
    parsed && typeof parsed === 'object' && 'data' in parsed && !('features' in parsed)
      ? (parsed as { data: unknown }).data
      : parsed;
  if (
    !candidate ||
    typeof candidate !== 'object' ||
    !Array.isArray((candidate as ExportDocument).features) ||
    !Array.isArray((candidate as ExportDocument).featureStrategies)
  )
    return { problem: 'Not an export: it needs "features" and "featureStrategies" lists.' };
  return { doc: candidate as ExportDocument };
}

function Findings(props: { title: string; color: string; items: Finding[] }) {
  if (props.items.length === 0) return null;
  return (
    <Alert color={props.color} title={props.title} styles={{ title: { color: 'var(--mantine-color-text)' } }}>
      <Stack gap="xs">
        {props.items.map((f) => (
          <div key={f.message}>
            <Text size="sm">{f.message}</Text>
            {f.affectedItems.length > 0 && (
              <List size="sm">
                {f.affectedItems.map((item) => (
                  <List.Item key={item}>{item}</List.Item>
                ))}
              </List>
            )}
          </div>
        ))}
      </Stack>
    </Alert>
  );
}

/**
 * Import: a document, a target project and environment; validation first (errors, warnings,
 * missing permissions), and the Import button only for the validated input with no errors.
 */
export function ImportSection({ text, onText }: { text: string; onText: (text: string) => void }) {
  const environments = useEnvironments();
  const projects = useProjects();
  const [project, setProject] = useState<string | null>(null);
  const [environment, setEnvironment] = useState<string | null>(null);
  const [file, setFile] = useState<File | null>(null);
  const parsed = parseDocument(text);
  const target = { project, environment };
  // What was validated: any change to the text or the target asks for a new validation.
  const inputKey = JSON.stringify([text, project, environment]);

  const validate = useMutation({
    mutationFn: async (args: { key: string; body: unknown }) => ({
      key: args.key,
      result: await post<Validation>('api/admin/features-batch/validate', args.body),
    }),
  });
  const run = useMutation({
    mutationFn: async (args: { body: { project: string; environment: string; data: ExportDocument } }) => {
      await post('api/admin/features-batch/import', args.body);
      return args.body;
    },
    // Applied: the old validation no longer describes what an import would do.
    onSuccess: () => validate.reset(),
  });
  const validation = validate.data?.key === inputKey ? validate.data.result : undefined;
  const ready =
    validation !== undefined && validation.errors.length === 0 && validation.permissions.length === 0;
  const body =
    'doc' in parsed && project && environment ? { project, environment, data: parsed.doc } : undefined;

  const pick = async (picked: File | null) => {
    setFile(picked);
    if (picked) onText(await picked.text());
  };

  return (
    <Stack component="section" aria-labelledby="import-heading" gap="sm">
      <Title order={2} size="h3" id="import-heading">
        Import
      </Title>
      <Text size="sm" c="dimmed">
        Applies an export to one project and environment, all or nothing. Validate first: the Import button is
        enabled once validation finds no errors.
      </Text>
      <Stack maw={640} gap="sm">
        <FileInput
          label="Export file"
          description="A .json file from an export; its text fills the box below."
          placeholder="Pick a file"
          accept="application/json,.json"
          value={file}
          onChange={pick}
        />
        <Textarea
          label="Export document (JSON)"
          autosize
          minRows={4}
          maxRows={8}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          value={text}
          onChange={(e) => {
            setFile(null);
            onText(e.currentTarget.value);
          }}
          error={text.trim() && 'problem' in parsed ? parsed.problem : undefined}
        />
        {'doc' in parsed && (
          <Text size="sm" aria-live="polite">
            The document holds {describeDocument(parsed.doc)}.
          </Text>
        )}
        <Group grow align="start">
          <Select
            label="Target project"
            required
            data={(projects.data ?? []).map((p) => ({ value: p.id, label: p.name }))}
            value={target.project}
            onChange={setProject}
            allowDeselect={false}
            searchable
          />
          <Select
            label="Target environment"
            required
            data={(environments.data ?? []).map((e) => e.name)}
            value={target.environment}
            onChange={setEnvironment}
            allowDeselect={false}
          />
        </Group>
        <Group>
          <Button
            variant="default"
            disabled={!body}
            loading={validate.isPending}
            onClick={() => body && validate.mutate({ key: inputKey, body })}
          >
            Validate
          </Button>
          <Button
            disabled={!ready || !body}
            loading={run.isPending}
            onClick={() => body && run.mutate({ body })}
          >
            Import
          </Button>
        </Group>
      </Stack>
      {validation && (
        <Stack gap="xs" aria-live="polite">
          <Title order={3} size="h4">
            Validation
          </Title>
          {ready ? (
            <Text>
              No errors: the document can be imported into {project} ({environment}).
            </Text>
          ) : (
            <Text>The document cannot be imported as it is; see below.</Text>
          )}
          <Findings title="Errors" color="red" items={validation.errors} />
          <Findings title="Missing permissions" color="red" items={validation.permissions} />
          <Findings title="Warnings" color="yellow" items={validation.warnings} />
        </Stack>
      )}
      {run.data && (
        <Alert
          color="green"
          title="Imported"
          role="status"
          styles={{ title: { color: 'var(--mantine-color-text)' } }}
        >
          {describeDocument(run.data.data)} imported into{' '}
          <Anchor component={Link} to={`/projects/${enc(run.data.project)}`}>
            {run.data.project}
          </Anchor>{' '}
          ({run.data.environment}).
        </Alert>
      )}
    </Stack>
  );
}
