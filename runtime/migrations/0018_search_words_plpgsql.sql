-- The same words as before, from a PL/pgSQL function: a SQL function whose body is a query is
-- parsed and planned again by every statement that calls it (a process's start among them), where
-- PL/pgSQL keeps the plan of its query for the connection's life.
create or replace function workflow_search_words(text) returns text language plpgsql immutable parallel safe as $$
begin
  return (
    select coalesce(string_agg(
      case when m.parts[1] ~ '^[㐀-鿿豈-﫿]{2,}$'
           then (select string_agg(substr(m.parts[1], i, 2), ' ' order by i)
                 from generate_series(1, length(m.parts[1]) - 1) as i)
           else m.parts[1] end, ' ' order by m.n), '')
    from regexp_matches(lower($1), '[㐀-鿿豈-﫿]+|[^[:space:][:punct:]㐀-鿿豈-﫿]+', 'g') with ordinality as m(parts, n));
end
$$;
