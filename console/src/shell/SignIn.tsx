/** Sign-in with an API key (when the server has PARLEY_API_KEYS): checked against the server before it is kept. */
import { useState, type FormEvent } from 'react';
import { api, ApiError, session } from '../api/client.ts';

export function SignIn({ onSignedIn, refused }: { onSignedIn: () => void; refused?: boolean }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | undefined>(refused ? 'Your key was refused: sign in again.' : undefined);
  const [checking, setChecking] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setChecking(true);
    session.signIn(key.trim());
    try {
      await api('/api/runs?limit=1');
      onSignedIn();
    } catch (err) {
      session.signOut();
      setError(
        err instanceof ApiError && err.status === 401 ? 'That key is not accepted by this server.' : String(err),
      );
    } finally {
      setChecking(false);
    }
  };
  return (
    <main className="signin">
      <form onSubmit={submit} aria-label="Sign in">
        <h1>Parley</h1>
        <p>This server asks for an API key (one of PARLEY_API_KEYS or PARLEY_ADMIN_KEYS).</p>
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="current-password"
          value={key}
          onChange={(e) => setKey(e.target.value)}
          required
        />
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={checking || !key.trim()}>
          {checking ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
