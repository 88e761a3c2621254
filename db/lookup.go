package db

import (
	"context"
)

// NodeUUIDsByID maps node ids to UUIDs in one query, for lists that show
// the node of each row (ports, port groups, volume resources). Ids that
// match no node are absent from the map.
func (s *Store) NodeUUIDsByID(ctx context.Context, ids []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(ids))
	for start := 0; start < len(ids); start += 500 {
		chunk := ids[start:min(start+500, len(ids))]
		rows, err := s.db.QueryContext(ctx, "SELECT `id`, `uuid` FROM `nodes` WHERE `id` IN ("+placeholders(len(chunk))+")", anySlice(chunk)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			var uuid string
			if err := rows.Scan(&id, &uuid); err != nil {
				rows.Close()
				return nil, err
			}
			out[id] = uuid
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
