import type { BootstrapChannel } from "../contracts/bootstrap.ts";
import type { Queryable } from "../runtime/database.ts";

const COLUMNS = `name, plugin, config, operator_application as "operatorApplication",
  permitted_applications as "permittedApplications", rate_per_second as "ratePerSecond",
  max_in_flight as "maxInFlight"`;

interface ChannelRow extends Omit<BootstrapChannel, "operatorApplication" | "ratePerSecond"> {
  operatorApplication: string | null;
  ratePerSecond: number | null;
}

/** A row as the bootstrap document writes it: absent optional fields are left out, not null. */
function asChannel(row: ChannelRow): BootstrapChannel {
  const { operatorApplication, ratePerSecond, ...rest } = row;
  return {
    ...rest,
    ...(operatorApplication === null ? {} : { operatorApplication }),
    ...(ratePerSecond === null ? {} : { ratePerSecond }),
  };
}

/** Creates or replaces a channel. */
export async function upsertChannel(sql: Queryable, channel: BootstrapChannel): Promise<void> {
  await sql`
    insert into channels (name, plugin, config, operator_application, permitted_applications,
                          rate_per_second, max_in_flight)
    values (${channel.name}, ${channel.plugin}, ${sql.json(channel.config as never)},
            ${channel.operatorApplication ?? null}, ${channel.permittedApplications},
            ${channel.ratePerSecond ?? null}, ${channel.maxInFlight})
    on conflict (name) do update set
      plugin = excluded.plugin, config = excluded.config,
      operator_application = excluded.operator_application,
      permitted_applications = excluded.permitted_applications,
      rate_per_second = excluded.rate_per_second, max_in_flight = excluded.max_in_flight,
      updated_at = now()`;
}

/** Every channel, by name; a platform has a handful. */
export async function allChannels(sql: Queryable): Promise<BootstrapChannel[]> {
  const rows = await sql<ChannelRow[]>`select ${sql.unsafe(COLUMNS)} from channels order by name`;
  return rows.map(asChannel);
}

/** Removes a channel; false when there was none of that name. */
export async function deleteChannel(sql: Queryable, name: string): Promise<boolean> {
  const deleted = await sql`delete from channels where name = ${name}`;
  return deleted.count > 0;
}
