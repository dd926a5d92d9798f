/** The scripted model's public surface (see docs/scripted-model.md). */
export {
  startScriptedModel,
  scriptedModelApp,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedRequestLog,
} from './server.ts';
export { FAULT_KINDS, parseFaultRules, type FaultKind, type FaultRule } from './faults.ts';
export { PROFILES, PROFILE_PRESETS, parseProfiles, type Profile } from './profiles.ts';
export { findLeftovers, promptLeftovers, type PromptLeftover } from './leftovers.ts';
