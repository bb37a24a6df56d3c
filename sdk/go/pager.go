package kyc

import (
	"context"
	"iter"

	"github.com/kycfield/kyc/sdk/go/kycapi"
)

// Customers lists the key's customers, newest first, with the filters of
// params (Status, Search, Limit as the page size), following
// pagination.nextCursor from page to page (cursor paging has no 10,000
// limit, unlike Page). Stop early with break; an error ends the sequence.
//
//	for customer, err := range c.Customers(ctx, kycapi.ListCustomersParams{}) {
//		if err != nil { return err }
//		fmt.Println(customer.Id)
//	}
func (c *Client) Customers(ctx context.Context, params kycapi.ListCustomersParams) iter.Seq2[kycapi.Customer, error] {
	params.Page = nil
	return paginate(func(cursor *string) ([]kycapi.Customer, *string, error) {
		params.Cursor = cursor
		res, err := Check(c.API.ListCustomersWithResponse(ctx, &params))
		if err != nil {
			return nil, nil, err
		}
		return res.JSON200.Data.Customers, res.JSON200.Data.Pagination.NextCursor, nil
	}, params.Cursor)
}

// Events lists the events of the last 30 days, newest first, with the
// filters of params (Type, CustomerId, Limit as the page size), following
// nextCursor. Each event is the body its webhook deliveries carry, so after
// an outage read until an id already handled, then break.
func (c *Client) Events(ctx context.Context, params kycapi.ListEventsParams) iter.Seq2[kycapi.Event, error] {
	return paginate(func(cursor *string) ([]kycapi.Event, *string, error) {
		params.Cursor = cursor
		res, err := Check(c.API.ListEventsWithResponse(ctx, &params))
		if err != nil {
			return nil, nil, err
		}
		return res.JSON200.Data.Events, res.JSON200.Data.NextCursor, nil
	}, params.Cursor)
}

// paginate yields the items of page after page, from cursor (nil: the
// first page), until a page has no next cursor.
func paginate[T any](page func(cursor *string) ([]T, *string, error), cursor *string) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for {
			items, next, err := page(cursor)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, item := range items {
				if !yield(item, nil) {
					return
				}
			}
			if next == nil || *next == "" {
				return
			}
			cursor = next
		}
	}
}
