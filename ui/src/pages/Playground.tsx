import { Alert, Button, Group, JsonInput, MultiSelect, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { post } from '../api';
import { ErrorState } from '../components';
import { useEnvironments, useProjects } from '../queries';
import { ADVANCED_PATH, CopyAsCurl } from './PlaygroundCurl';
import { type AdvancedBody, type AdvancedResult, PlaygroundResults } from './PlaygroundResults';

/** Context fields kept in the URL once evaluated, so that a shared link shows the same answer. */
const CONTEXT_PARAMS = ['appName', 'userId', 'sessionId', 'remoteAddress', 'properties'] as const;

/** The free JSON properties as the API takes them: an object (of strings). */
function parseProperties(text: string): Record<string, string> {
  const parsed: unknown = JSON.parse(text.trim() || '{}');
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('Other properties must be a JSON object, such as {"region": "eu"}.');
  return parsed as Record<string, string>;
}

/**
 * Which flags are on for a context, in several environments at once (the advanced playground):
 * fields plus free JSON properties. Environments and projects live in the URL (`environment` and
 * `project`, repeated), and so does the context once evaluated: a link shows the same view.
 */
export default function PlaygroundPage() {
  const [params, setParams] = useSearchParams();
  const environments = useEnvironments();
  const projects = useProjects();
  const [appName, setAppName] = useState(params.get('appName') ?? 'playground');
  const [userId, setUserId] = useState(params.get('userId') ?? '');
  const [sessionId, setSessionId] = useState(params.get('sessionId') ?? '');
  const [remoteAddress, setRemoteAddress] = useState(params.get('remoteAddress') ?? '');
  const [properties, setProperties] = useState(params.get('properties') ?? '{}');
  const [formError, setFormError] = useState<unknown>(null);

  const known = environments.data?.map((e) => e.name);
  // No `environment` in the URL: the first enabled one. An empty one: none picked (yet).
  const environment = params.has('environment')
    ? params.getAll('environment').filter((e) => e && (!known || known.includes(e)))
    : (known?.slice(0, 1) ?? []);
  const project = params.getAll('project').filter(Boolean);

  const setList = (key: string, values: string[]) => {
    const next = new URLSearchParams(params);
    next.delete(key);
    for (const value of values) next.append(key, value);
    if (values.length === 0 && key === 'environment') next.set(key, '');
    setParams(next, { replace: true });
  };

  /** The request body for the form as it is now; throws when the properties are not a JSON object. */
  const body = (): AdvancedBody => {
    if (environment.length === 0) throw new Error('Pick at least one environment.');
    return {
      environments: environment,
      projects: project.length > 0 ? project : '*',
      context: {
        appName,
        ...(userId && { userId }),
        ...(sessionId && { sessionId }),
        ...(remoteAddress && { remoteAddress }),
        properties: parseProperties(properties),
      },
    };
  };

  const run = useMutation({
    mutationFn: (request: AdvancedBody) => post<AdvancedResult>(ADVANCED_PATH, request),
  });

  const evaluate = () => {
    let request: AdvancedBody;
    try {
      request = body();
    } catch (error) {
      setFormError(error);
      return;
    }
    setFormError(null);
    const next = new URLSearchParams(params);
    const values = { appName, userId, sessionId, remoteAddress, properties: properties.trim() };
    for (const key of CONTEXT_PARAMS) {
      const value = values[key];
      if (value && !(key === 'properties' && value === '{}')) next.set(key, value);
      else next.delete(key);
    }
    setParams(next, { replace: true });
    run.mutate(request);
  };

  // A shared link (one with a context) shows its answer as soon as the environments are known.
  const shared = useRef(params.has('appName'));
  useEffect(() => {
    if (shared.current && environments.data && environment.length > 0) {
      shared.current = false;
      evaluate();
    }
  });

  return (
    <Stack>
      <Title order={1} size="h2">
        Playground
      </Title>
      <Text c="dimmed">Which flags are enabled for a user, in one or more environments.</Text>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          evaluate();
        }}
      >
        <Stack>
          <Group align="start">
            <MultiSelect
              label="Environments"
              data={known ?? []}
              value={environment}
              onChange={(v) => setList('environment', v)}
              searchable
              error={
                environments.data && environment.length === 0 ? 'Pick at least one environment.' : undefined
              }
              miw={220}
              maw={480}
            />
            <MultiSelect
              label="Projects"
              placeholder={project.length === 0 ? 'All projects' : undefined}
              data={(projects.data ?? []).map((p) => ({ value: p.id, label: p.name }))}
              value={project}
              onChange={(v) => setList('project', v)}
              searchable
              clearable
              miw={220}
              maw={480}
            />
          </Group>
          <Group align="end">
            <TextInput label="appName" value={appName} onChange={(e) => setAppName(e.currentTarget.value)} />
            <TextInput label="userId" value={userId} onChange={(e) => setUserId(e.currentTarget.value)} />
            <TextInput
              label="sessionId"
              value={sessionId}
              onChange={(e) => setSessionId(e.currentTarget.value)}
            />
            <TextInput
              label="remoteAddress"
              value={remoteAddress}
              onChange={(e) => setRemoteAddress(e.currentTarget.value)}
            />
          </Group>
          <JsonInput
            label="Other properties (JSON)"
            value={properties}
            onChange={setProperties}
            validationError="Not valid JSON"
            autosize
            minRows={2}
            maw={600}
          />
          <Text size="sm" c="dimmed">
            Comma-separated values are evaluated one by one: every combination is a context.
          </Text>
          <Group>
            <Button type="submit" loading={run.isPending} disabled={environment.length === 0}>
              Evaluate
            </Button>
            <CopyAsCurl body={body} onError={setFormError} />
          </Group>
        </Stack>
      </form>
      {formError ? (
        <Alert color="red" title="Not evaluated" role="alert">
          {formError instanceof Error ? formError.message : String(formError)}
        </Alert>
      ) : null}
      {run.isError && <ErrorState error={run.error} />}
      {run.data && run.variables && (
        <PlaygroundResults result={run.data} environments={run.variables.environments} />
      )}
    </Stack>
  );
}
