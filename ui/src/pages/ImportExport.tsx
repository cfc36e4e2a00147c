import { Divider, Stack, Title } from '@mantine/core';
import { useState } from 'react';
import { ExportSection } from './TransferExport';
import { ImportSection } from './TransferImport';

/** Export flags from an environment and import such a document into a project (features-batch API). */
export default function ImportExportPage() {
  // The import's text: typed, read from a file, or handed over by the export.
  const [text, setText] = useState('');
  return (
    <Stack gap="lg">
      <Title order={1} size="h2">
        Import and export
      </Title>
      <ExportSection onUse={setText} />
      <Divider />
      <ImportSection text={text} onText={setText} />
    </Stack>
  );
}
