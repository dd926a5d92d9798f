/**
 * useScriptedModel: the hooks the model-client tests each wrote by hand — one scripted model server for
 * the file (beforeAll/afterAll), its request log emptied and its faults cleared before each test.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startScriptedModel, type ScriptedModel, type ScriptedModelOptions } from '../../src/scripted-model/index.ts';

/** Registers the hooks in the calling file and returns the server they start (read it inside tests and hooks). */
export function useScriptedModel(options: ScriptedModelOptions = {}): ScriptedModel {
  let current: ScriptedModel | undefined;
  const live = (): ScriptedModel => {
    if (!current) throw new Error('useScriptedModel: read the scripted model inside a test or a later hook');
    return current;
  };
  beforeAll(async () => {
    current = await startScriptedModel(options);
  });
  afterAll(async () => {
    await current?.close();
    current = undefined;
  });
  beforeEach(() => {
    live().requests.length = 0;
    live().setFaults([]);
  });
  return {
    get url() {
      return live().url;
    },
    get requests() {
      return live().requests;
    },
    setFaults: (rules) => live().setFaults(rules),
    close: () => live().close(),
  };
}
