/**
 * The table of every setting, one row each (setting.ts says what a row holds). Order is the order
 * of docs/configuration.md; a test keeps the two in step.
 */
import { BUDGET_SETTINGS } from './budget.ts';
import { ENGINE_SETTINGS } from './engine.ts';
import { KNOWLEDGE_SETTINGS } from './knowledge.ts';
import { MODEL_SETTINGS } from './model.ts';
import { PROTOCOL_SETTINGS } from './protocols.ts';
import { SERVER_SETTINGS } from './server.ts';
import { STORE_SETTINGS } from './store.ts';
import { TOOL_SETTINGS } from './tools.ts';

export const SETTINGS = [
  ...SERVER_SETTINGS,
  ...MODEL_SETTINGS,
  ...STORE_SETTINGS,
  ...KNOWLEDGE_SETTINGS,
  ...ENGINE_SETTINGS,
  ...BUDGET_SETTINGS,
  ...TOOL_SETTINGS,
  ...PROTOCOL_SETTINGS,
] as const;
