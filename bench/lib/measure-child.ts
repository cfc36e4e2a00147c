/**
 * `measure` in a process of its own (see `measureApart`): the options as JSON in argv[2] (no
 * per-request functions), the figures as JSON on stdout.
 */
import { type LoadOptions, measure } from './measure.js';

const options = JSON.parse(process.argv[2] ?? '{}') as LoadOptions;
const figures = await measure(options);
process.stdout.write(JSON.stringify({ ...figures, samples: undefined }));
