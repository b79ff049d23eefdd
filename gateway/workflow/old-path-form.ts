/**
 * Spec 001 "Versioning" 3: the directory's operations were at `/enterprise/{type}` before they
 * became `/triple/{type}`, and clients written against the old name still call it. Those paths
 * (for `user`, `dept`, `post` and `occupy`, one or many) answer as their `/triple` form; the
 * tenant's own `/enterprise/{type}` (memberships, tags, settings) is not among them.
 */
const OLD_FORM = /^([^?#]*\/apis\/v2d?)\/enterprise\/((?:users?|depts?|posts?|occupy|occupies)(?:[/?#].*)?)$/;

/**
 * The request as its `/triple` form when it uses the old name, else itself. Only the address
 * changes: on Node the body is still read from the socket, as for any request.
 */
export function tripleFormOf(request: Request): Request {
  const url = request.url;
  if (!url.includes("/enterprise/")) return request;
  const old = OLD_FORM.exec(url);
  if (!old) return request;
  return new Request(`${old[1]}/triple/${old[2]}`, { method: request.method, headers: request.headers });
}
