import type { BootstrapChannel } from "../../contracts/bootstrap.ts";
import { CsrfField, Layout, type PageSession, Words } from "./layout.tsx";

const channelHref = (name: string) => `/console/channels/${encodeURIComponent(name)}`;

/** The channels, credentials masked, and the form of a test message. */
export function channelsView(props: { session: PageSession; channels: BootstrapChannel[] }) {
  const { session, channels } = props;
  return (
    <Layout title="Channels" section="/console/channels" session={session}>
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Plugin</th>
            <th scope="col">Configuration (credentials masked)</th>
            <th scope="col">Operator application</th>
            <th scope="col">Permitted applications</th>
            <th scope="col">Rate, in flight</th>
            <th scope="col">Edit</th>
          </tr>
        </thead>
        <tbody>
          {channels.map((channel) => (
            <tr>
              <td>{channel.name}</td>
              <td>{channel.plugin}</td>
              <td>
                <pre>{JSON.stringify(channel.config, null, 2)}</pre>
              </td>
              <td>{channel.operatorApplication ?? <span class="muted">none</span>}</td>
              <td>
                <Words words={channel.permittedApplications} none="none" />
              </td>
              <td>
                {channel.ratePerSecond === undefined ? "unlimited" : `${channel.ratePerSecond}/s`},{" "}
                {channel.maxInFlight}
              </td>
              <td>
                <a href={channelHref(channel.name)}>edit</a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {channels.length === 0 ? <p class="muted">No channels are configured.</p> : null}

      <h2>Send a test message</h2>
      <p class="muted">
        Recorded as a notification of the application named (empty: the channel's operator application, or its
        first permitted one) and delivered by the workers like any other; the next page shows its task.
      </p>
      <form method="post" action="/console/channels/test-message" class="stacked">
        <CsrfField session={session} />
        <label for="test-channel">Channel</label>
        <select id="test-channel" name="channel" required>
          {channels.map((channel) => (
            <option value={channel.name}>{channel.name}</option>
          ))}
        </select>
        <label for="test-recipient">
          Recipient (an account, an e-mail address or a phone number, as the channel takes)
        </label>
        <input type="text" id="test-recipient" name="recipient" required maxlength={320} />
        <label for="test-application">Sent as application</label>
        <input type="text" id="test-application" name="application" maxlength={64} />
        <label for="test-subject">Subject</label>
        <input type="text" id="test-subject" name="subject" value="Test message" maxlength={99} />
        <label for="test-text">Text</label>
        <textarea id="test-text" name="text" rows={4} maxlength={2000} required>
          A test message from the platform's operators.
        </textarea>
        <p>
          <button type="submit">Send</button>
        </p>
      </form>
    </Layout>
  );
}

/** One channel's entry as JSON, to edit; a masked value left as it is keeps the stored one. */
export function channelEditView(props: { session: PageSession; name: string; text: string; error?: string }) {
  return (
    <Layout title={`Channel ${props.name}`} section="/console/channels" session={props.session}>
      {props.error ? (
        <p class="flash error" role="alert">
          {props.error}
        </p>
      ) : null}
      <p>
        The channel's entry as the bootstrap file's <code>channels</code> section holds it. It is checked
        against its plugin's configuration schema when applied, then followed by every process within seconds.
        A masked credential left as <code>********</code> keeps its stored value; write{" "}
        <code>{'{"env": "NAME"}'}</code> to read one from the workers' environment.
      </p>
      <form method="post" action={channelHref(props.name)}>
        <CsrfField session={props.session} />
        <label for="entry">Entry (JSON)</label>
        <textarea id="entry" name="entry" rows={22} spellcheck={false}>
          {props.text}
        </textarea>
        <p>
          <button type="submit">Apply</button> <a href="/console/channels">Cancel</a>
        </p>
      </form>
    </Layout>
  );
}
