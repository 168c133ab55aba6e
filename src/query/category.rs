//! `wikiwit category NAME`: members of a category, subcategories first.

use serde::Serialize;

use super::QueryError;
use crate::index::Index;
use crate::title::NS_CATEGORY;

#[derive(Debug, Serialize)]
pub struct CategoryView {
    pub category: String,
    /// Whether the category has a page of its own.
    pub page_exists: bool,
    pub subcategories: Vec<String>,
    pub pages: Vec<String>,
}

pub fn category(index: &Index, name: &str) -> Result<CategoryView, QueryError> {
    // Accept "Rivers of Europe", "Category:Rivers of Europe" and localized prefixes.
    let t = index
        .codec()
        .parse(name, NS_CATEGORY)
        .map_err(|e| QueryError::NotFound(format!("{name:?} is not a valid category name: {e}")))?;
    if t.ns != NS_CATEGORY {
        return Err(QueryError::NotFound(format!(
            "{name:?} is not in the category namespace"
        )));
    }
    let members = index.category_members(&t.dbkey)?.ok_or_else(|| {
        QueryError::NotFound(format!(
            "no page is in category {:?}",
            t.dbkey.replace('_', " ")
        ))
    })?;
    let mut subcategories = Vec::new();
    let mut pages = Vec::new();
    for m in members {
        let rec = index.page(m)?;
        if rec.ns == NS_CATEGORY {
            subcategories.push(index.display_title(&rec));
        } else {
            pages.push(index.display_title(&rec));
        }
    }
    Ok(CategoryView {
        category: index.codec().prefixed_text(NS_CATEGORY, &t.dbkey),
        page_exists: index.find(NS_CATEGORY, &t.dbkey).is_some(),
        subcategories,
        pages,
    })
}
