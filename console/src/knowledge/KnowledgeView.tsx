/**
 * What Parley knows: specialists and their tools from the knowledge graph, where each came from and
 * how well it has done (proficiency), each MCP server's connection and circuit breaker, and a reload.
 */
import { useState } from 'react';
import { api, ApiError } from '../api/client.ts';
import type { McpServerStatus, Proficiency, SpecialistRecord, ToolRecord } from '../api/types.ts';
import { useLoad } from '../shell/useLoad.ts';

type Specialist = SpecialistRecord & { proficiency: Proficiency };
type Tool = ToolRecord & { requireApproval?: boolean };

export default function KnowledgeView() {
  const specialists = useLoad<{ specialists: Specialist[] }>('/api/specialists?include=proficiency');
  const servers = useLoad<{ servers: McpServerStatus[] }>('/mcp/servers');
  const tools = useLoad<{ tools: Tool[] }>('/mcp/tools');
  const [reloading, setReloading] = useState(false);
  const [notice, setNotice] = useState<{ text: string; error?: boolean } | undefined>(undefined);

  const reload = async () => {
    setReloading(true);
    try {
      await api('/mcp/reload', { method: 'POST', body: {} });
      setNotice({ text: 'Reloaded: specialists, tools and servers are read again.' });
      specialists.reload();
      servers.reload();
      tools.reload();
    } catch (err) {
      setNotice({ text: err instanceof ApiError ? err.message : String(err), error: true });
    } finally {
      setReloading(false);
    }
  };

  return (
    <div className="knowledge">
      <section className="panel" aria-label="MCP servers">
        <h2>
          MCP servers{' '}
          <button type="button" onClick={reload} disabled={reloading}>
            {reloading ? 'Reloading…' : 'Reload'}
          </button>
        </h2>
        {notice && (
          <p className={notice.error ? 'error' : 'notice'} role="status">
            {notice.text}
          </p>
        )}
        {servers.error && <p className="error">{servers.error}</p>}
        <table>
          <thead>
            <tr>
              <th>Server</th>
              <th>Connection</th>
              <th>Circuit breaker</th>
              <th>Tools</th>
              <th>Last error</th>
            </tr>
          </thead>
          <tbody>
            {servers.data?.servers.map((s) => (
              <tr key={s.server} data-server={s.server}>
                <td>{s.server}</td>
                <td>{s.connected ? '● connected' : '○ not connected'}</td>
                <td>{s.breaker === 'closed' ? '✓ closed' : s.breaker === 'open' ? '✗ open' : '◐ half-open'}</td>
                <td>{s.tools}</td>
                <td className="muted">{s.lastError ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {servers.data?.servers.length === 0 && <p className="muted">No MCP servers configured.</p>}
      </section>
      <section className="panel" aria-label="Specialists">
        <h2>Specialists</h2>
        {specialists.error && <p className="error">{specialists.error}</p>}
        <table>
          <thead>
            <tr>
              <th>Specialist</th>
              <th>Kind</th>
              <th>From</th>
              <th>Available</th>
              <th>Tools</th>
              <th>Runs</th>
              <th>Success</th>
              <th>Mean score</th>
              <th>Mean time</th>
            </tr>
          </thead>
          <tbody>
            {specialists.data?.specialists.map((s) => (
              <tr key={s.id} data-specialist={s.id}>
                <td title={s.description}>
                  {s.name}
                  {s.domains.length > 0 && <small className="muted"> · {s.domains.join(', ')}</small>}
                </td>
                <td>{s.kind}</td>
                <td className="muted">{s.sourceId}</td>
                <td title={s.unavailableReason}>
                  {s.available ? 'yes' : `no${s.unavailableReason ? ` (${s.unavailableReason})` : ''}`}
                </td>
                <td className="muted" title={s.tools.join('\n')}>
                  {s.tools.length === 0 ? '—' : s.tools.length <= 3 ? s.tools.join(', ') : `${s.tools.length} tools`}
                </td>
                <td>{s.proficiency.runs}</td>
                <td>
                  {s.proficiency.runs ? `${Math.round((100 * s.proficiency.successes) / s.proficiency.runs)}%` : '—'}
                </td>
                <td>{s.proficiency.runs ? s.proficiency.meanScore.toFixed(2) : '—'}</td>
                <td>{s.proficiency.runs ? `${Math.round(s.proficiency.meanLatencyMs)} ms` : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section className="panel" aria-label="Tools">
        <h2>Tools</h2>
        {tools.error && <p className="error">{tools.error}</p>}
        <ul className="tools">
          {tools.data?.tools.map((t) => (
            <li key={t.id}>
              <code>{t.id}</code>
              {t.requireApproval && <span className="tag">needs approval</span>}
              {t.annotations.destructiveHint && <span className="tag">destructive</span>}
              {t.annotations.readOnlyHint && <span className="tag">read-only</span>}
              <div className="muted clip">{t.description}</div>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
