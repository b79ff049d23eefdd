-- The same words as before. Text without a CJK character (most titles, accounts and names) has no
-- pairs to make: its words are its runs of letters and digits, which one replacement finds about
-- five times faster than matching each run and joining them in a query, once per process started
-- and per keyword searched.
create or replace function workflow_search_words(text) returns text language plpgsql immutable parallel safe as $$
begin
  if $1 !~ '[㐀-鿿豈-﫿]' then
    return btrim(regexp_replace(lower($1), '[[:space:][:punct:]]+', ' ', 'g'));
  end if;
  return (
    select coalesce(string_agg(
      case when m.parts[1] ~ '^[㐀-鿿豈-﫿]{2,}$'
           then (select string_agg(substr(m.parts[1], i, 2), ' ' order by i)
                 from generate_series(1, length(m.parts[1]) - 1) as i)
           else m.parts[1] end, ' ' order by m.n), '')
    from regexp_matches(lower($1), '[㐀-鿿豈-﫿]+|[^[:space:][:punct:]㐀-鿿豈-﫿]+', 'g') with ordinality as m(parts, n));
end
$$;
