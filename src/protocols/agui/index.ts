/** AG-UI: `aguiRoutes` serves POST /ag-ui (docs/protocols/agui.md). */
export { aguiRoutes, type AguiDeps } from './routes.ts';
