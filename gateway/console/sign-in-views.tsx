import { BarePage } from "./layout.tsx";

/** The sign-in form: the operator token, nothing else. */
export function signInView(props: { error?: string }) {
  return (
    <BarePage title="Sign in">
      <h1>Operator console</h1>
      <p>Sign in with the operator token (the gateway's ADMIN_TOKEN).</p>
      {props.error ? (
        <p class="flash error" role="alert">
          {props.error}
        </p>
      ) : null}
      <form method="post" action="/console/sign-in" class="stacked">
        <label for="token">Operator token</label>
        <input
          type="password"
          id="token"
          name="token"
          autocomplete="current-password"
          required
          maxlength={1024}
        />
        <button type="submit">Sign in</button>
      </form>
    </BarePage>
  );
}
