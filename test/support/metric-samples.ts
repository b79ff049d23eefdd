/** Every sample of a Prometheus text scrape, keyed by its series (`name{labels}`). */
export function metricSamples(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const cut = line.lastIndexOf(" ");
    series.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return series;
}
