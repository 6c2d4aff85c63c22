//! A host cache's plan: the cache's parameters and its cost model.

use nest_cache::{CacheParams, CostModel};

#[derive(Debug, Clone)]
pub struct CachePlan {
    pub params: CacheParams,
    pub costs: CostModel,
}
