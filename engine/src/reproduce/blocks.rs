//! The generated tables inside a Markdown file: found by their markers, compared cell by cell, and
//! replaced.

use super::Table;

pub const CLOSING: &str = "<!-- /reproduce -->";

pub fn opening(id: &str) -> String {
    format!("<!-- reproduce: {id} -->")
}

/// The block of `id` in `text`: its byte range, markers included.
fn find(text: &str, id: &str) -> Option<std::ops::Range<usize>> {
    let start = text.find(&opening(id))?;
    let end = start + text[start..].find(CLOSING)? + CLOSING.len();
    Some(start..end)
}

/// A block's line above the table, and its rows of cells (the header first, the rule left out).
fn parsed(block: &str) -> (String, Vec<Vec<String>>) {
    let mut lines = block.lines().skip(1).filter(|l| !l.trim().is_empty() && l.trim() != CLOSING);
    let made_by = lines.next().unwrap_or_default().trim().to_owned();
    let rows = lines
        .filter(|l| l.starts_with('|') && !l.starts_with("|---"))
        .map(|l| l.trim().trim_matches('|').split('|').map(|cell| cell.trim().to_owned()).collect())
        .collect();
    (made_by, rows)
}

/// Every difference between `text`'s tables and `tables`, one line each, naming the table, the
/// row (by its first cell) and the column (by its header).
pub fn differences(text: &str, tables: &[Table]) -> Vec<String> {
    let mut found = Vec::new();
    for table in tables {
        let Some(range) = find(text, table.id) else {
            found.push(format!("{}: not in the file (no `{}`)", table.id, opening(table.id)));
            continue;
        };
        let (made_by, rows) = parsed(&text[range]);
        if made_by != table.made_by {
            found
                .push(format!("{}, the line above the table: file \"{made_by}\", now \"{}\"", table.id, table.made_by));
        }
        let new_rows: Vec<&Vec<String>> = std::iter::once(&table.header).chain(&table.rows).collect();
        if rows.len() != new_rows.len() {
            found.push(format!("{}: {} rows in the file, {} now", table.id, rows.len(), new_rows.len()));
        }
        for (old, new) in rows.iter().zip(new_rows) {
            let row_name = new.first().map_or("", String::as_str);
            if old.len() != new.len() {
                found.push(format!(
                    "{}, row \"{row_name}\": {} cells in the file, {} now",
                    table.id,
                    old.len(),
                    new.len()
                ));
                continue;
            }
            for ((column, old), new) in table.header.iter().zip(old).zip(new) {
                if old != new {
                    found.push(format!(
                        "{}, row \"{row_name}\", column \"{column}\": file \"{old}\", now \"{new}\"",
                        table.id
                    ));
                }
            }
        }
    }
    found
}

/// `text` with each of `tables` in place of its block.
pub fn replaced(text: &str, tables: &[Table]) -> Result<String, String> {
    let mut text = text.to_owned();
    for table in tables {
        let range = find(&text, table.id).ok_or_else(|| {
            format!("--write: the file has no `{}` to replace; add the two markers where it goes", opening(table.id))
        })?;
        text.replace_range(range, &table.markdown());
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(cell: &str) -> Table {
        Table {
            id: "t",
            made_by: "`rlcg reproduce --only t`: seeds 1–2.".to_owned(),
            header: vec!["row".to_owned(), "value".to_owned()],
            rows: vec![vec!["a".to_owned(), cell.to_owned()], vec!["b".to_owned(), "2".to_owned()]],
        }
    }

    #[test]
    fn a_block_round_trips_and_each_changed_cell_is_named() {
        let text = format!("# Docs\n\nProse.\n\n{}\n\nMore prose.\n", table("1").markdown());
        assert!(differences(&text, &[table("1")]).is_empty());
        assert_eq!(differences(&text, &[table("1.5")]), ["t, row \"a\", column \"value\": file \"1\", now \"1.5\""]);
        let written = replaced(&text, &[table("1.5")]).unwrap();
        assert!(written.starts_with("# Docs\n\nProse.\n\n") && written.ends_with("\n\nMore prose.\n"), "{written}");
        assert!(differences(&written, &[table("1.5")]).is_empty());
        assert_eq!(differences("no tables", &[table("1")]), ["t: not in the file (no `<!-- reproduce: t -->`)"]);
        assert!(replaced("no tables", &[table("1")]).unwrap_err().contains("<!-- reproduce: t -->"));
    }
}
