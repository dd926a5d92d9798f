/** Model access: the ModelClient port and its openai-SDK implementation. */
export * from './types.ts';
export { createModelClient, type ModelClientOptions, type ParleyModelClient } from './client.ts';
export { ModelError, type ModelErrorKind } from './errors.ts';
export {
  checkPricedModels,
  createPriceCatalog,
  loadPriceCatalog,
  type ModelPrice,
  type PriceCatalog,
} from './prices.ts';
export { pointAtScriptedModel } from './scripted-url.ts';
