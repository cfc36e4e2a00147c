// The pure evaluation engine (ADR 0002): compile a snapshot once, evaluate it for many contexts.
// Its rules are docs/evaluation.md; a bare §N in this directory is a section of that file.
export type { CompiledFlag, CompiledSnapshot, CompiledStrategy } from './compile.js';
export { compileSnapshot } from './compile.js';
export { compileConstraint, OPERATORS, type Operator } from './constraints.js';
export { type ContextView, prepareContext } from './context.js';
export { type Decision, decideFlag } from './decide.js';
export { evaluateAll, evaluateCompiled, evaluateFlag } from './evaluate.js';
export {
  anchored,
  type CompileBudget,
  compilePattern,
  fullMatch,
  newCompileBudget,
  type PatternResult,
  type UserPattern,
  withCompileBudget,
} from './patterns.js';
export type * from './types.js';
