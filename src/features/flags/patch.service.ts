import { Ajv } from 'ajv';
import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import type { Principal } from '../../platform/http/auth.js';
import { AppError, invalid, invalidField } from '../../platform/http/errors.js';
import { validationDetails } from '../../platform/http/validation.js';
import { applyJsonPatch, PatchError, type PatchOperation } from '../../platform/json-patch.js';
import type { FlagRow } from '../flag-rows/index.js';
import { type Flag, UpdateFlagBody, type UpdateFlagInput } from './flags.schemas.js';
import { updateFlagMetadata } from './flags.service.js';
import type { FlagPatchInput } from './patch.schemas.js';

/** What the patch may leave behind: the flag's metadata, nothing else (no environments, no variants). */
const PatchedFlag = Type.Object(
  { ...UpdateFlagBody.properties, project: Type.String({ description: 'Unchanged.' }) },
  { additionalProperties: false },
);
const checkPatched = new Ajv({ allErrors: true, strict: false }).compile(PatchedFlag);

/** The document a JSON Patch on a flag works on (Unleash patches the flag's metadata). */
const patchable = (flag: FlagRow) => ({
  name: flag.name,
  project: flag.project,
  description: flag.description,
  type: flag.type,
  stale: flag.stale,
  impressionData: flag.impressionData,
  archived: flag.archivedAt !== null,
});

/**
 * PATCH on a flag: the patch applies to the locked flag's metadata and the result goes through the
 * flag update (PUT), so it records what a PUT records: `feature-metadata-updated`,
 * `feature-stale-on/off`, `feature-archived`/`feature-revived`. Variants have their own PATCH (403,
 * as Unleash); the name and project cannot change (400).
 */
export async function patchFlag(
  deps: Deps,
  projectId: string,
  name: string,
  ops: FlagPatchInput,
  by: Principal,
  ifMatch?: string,
): Promise<Flag> {
  if (ops.some((op) => op.path.startsWith('/variants') || op.from?.startsWith('/variants'))) {
    throw new AppError(
      'InvalidOperationError',
      'Changing variants is done via PATCH operation to /api/admin/projects/:project/features/:feature/variants',
    );
  }
  return updateFlagMetadata(
    deps,
    projectId,
    name,
    (before) => {
      let patched: unknown;
      try {
        patched = applyJsonPatch(patchable(before), ops as PatchOperation[], {
          maxSize: deps.config.BODY_LIMIT,
        });
      } catch (error) {
        if (error instanceof PatchError) throw invalidField(`/body/${error.index}`, error.message);
        throw error;
      }
      if (!checkPatched(patched)) {
        const details = validationDetails(checkPatched.errors ?? [], 'body').map((d) => ({
          ...d,
          message: `The patched flag is invalid: ${d.message}`,
        }));
        throw invalid('The patched flag is invalid.', details.length ? details : undefined);
      }
      const { project, ...input } = patched as UpdateFlagInput & { project: string };
      if (project !== projectId) {
        throw invalidField(
          '/body',
          'A patch cannot move a flag to another project; use the change-project operation.',
        );
      }
      return input;
    },
    by,
    ifMatch,
  );
}
